import 'reflect-metadata';
import { IsBoolean, IsInt, IsOptional, IsString } from 'class-validator';
import { HermesError } from '../../src/errors';
import { JSONSchema } from '../../src/decorators/description.decorator';
import { McpHeader } from '../../src/decorators/mcp-header.decorator';
import { buildObjectSchema } from '../../src/schema/schema-builder';

// ---------------------------------------------------------------------------------------------
// Fixtures

class QueryInput {
  @McpHeader('Region') @IsString() region!: string;
  @McpHeader('Tenant-Id') @IsInt() tenant!: number;
  @McpHeader('Dry_Run') @IsBoolean() dryRun!: boolean;
  @IsString() query!: string;
}

class WithKeywords {
  // Object form below it: kept, merged.
  @McpHeader('Region') @JSONSchema({ examples: ['eu-west1'], description: 'Where to run' }) @IsString() region!: string;
  // Function form below it: kept, composed.
  @McpHeader('Zone') @JSONSchema((source) => ({ ...source, title: 'Zone' })) @IsString() zone!: string;
}

class OptionalHeader {
  @IsOptional() @McpHeader('Zone') @IsString() zone?: string;
}

class Parent {
  @McpHeader('Region') @IsString() region!: string;
}
class Child extends Parent {
  @IsString() extra!: string;
}

const property = (cls: Function, name: string) => buildObjectSchema(cls).properties?.[name] as Record<string, unknown>;

// ---------------------------------------------------------------------------------------------

describe('@McpHeader', () => {
  it('puts "x-mcp-header" on the built property, next to its type', () => {
    expect(property(QueryInput, 'region')['x-mcp-header']).toBe('Region');
    expect(buildObjectSchema(QueryInput).properties).toEqual({
      region: { type: 'string', 'x-mcp-header': 'Region' },
      tenant: { type: 'integer', 'x-mcp-header': 'Tenant-Id' },
      dryRun: { type: 'boolean', 'x-mcp-header': 'Dry_Run' },
      query: { type: 'string' },
    });
  });

  it('keeps a @JSONSchema written below it on the same property (object and function forms)', () => {
    expect(property(WithKeywords, 'region')).toEqual({
      type: 'string',
      examples: ['eu-west1'],
      description: 'Where to run',
      'x-mcp-header': 'Region',
    });
    expect(property(WithKeywords, 'zone')).toEqual({ type: 'string', title: 'Zone', 'x-mcp-header': 'Zone' });
  });

  it('is inherited with the property', () => {
    expect(property(Child, 'region')).toEqual({ type: 'string', 'x-mcp-header': 'Region' });
  });

  // The builder wraps a nullable (@IsOptional) property as anyOf [T, null], and the keyword moves
  // inside the anyOf, where clients reject it (and drop the tool). Passes once the builder stops
  // wrapping properties that carry "x-mcp-header"; then drop `.failing`.
  it('keeps the keyword at the top of an optional property, with a plain type', () => {
    expect(property(OptionalHeader, 'zone')).toEqual({ type: 'string', 'x-mcp-header': 'Zone' });
  });

  it.each([
    ['', 'non-empty'],
    ['Has Space', 'RFC 9110 token'],
    ['Line\r\nBreak', 'CR or LF'],
    ['New\nLine', 'CR or LF'],
    ['Colon:', 'RFC 9110 token'],
    ['Slash/', 'RFC 9110 token'],
    ['Région', 'RFC 9110 token'],
    ['(paren)', 'RFC 9110 token'],
    ['Tab\t', 'RFC 9110 token'],
  ])('refuses the header name %j when the class is declared', (name, why) => {
    const declare = () => {
      class Bad {
        @McpHeader(name) @IsString() region!: string;
      }
      return Bad;
    };
    expect(declare).toThrow(HermesError);
    expect(declare).toThrow(why);
    expect(declare).toThrow('Bad.region');
  });

  it('accepts every RFC 9110 tchar', () => {
    const name = "!#$%&'*+-.^_`|~09AZaz";
    class AllChars {
      @McpHeader(name) @IsString() value!: string;
    }
    expect(property(AllChars, 'value')['x-mcp-header']).toBe(name);
  });

  it('throws HERMES_INVALID_OPTIONS', () => {
    try {
      class Bad {
        @McpHeader('a b') @IsString() region!: string;
      }
      void Bad;
      throw new Error('no error');
    } catch (error) {
      expect((error as HermesError).code).toBe('HERMES_INVALID_OPTIONS');
    }
  });
});
