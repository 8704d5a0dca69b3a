/**
 * Bootstrap warnings: rules that are legal but rarely meant, found while a class's schema is built
 * (schemaWarningsFor) and gathered by the scanner for every tool and prompt (ScanResult.warnings),
 * for the factory to log.
 */
import 'reflect-metadata';
import { Type } from 'class-transformer';
import { Writable } from 'node:stream';
import {
  IsArray,
  IsCreditCard,
  IsDate,
  IsDefined,
  IsEmail,
  IsNotEmptyObject,
  IsOptional,
  IsString,
  Matches,
  MaxDate,
  MinDate,
  Validate,
  ValidateIf,
  ValidateNested,
  ValidatorConstraint,
  ValidatorConstraintInterface,
} from 'class-validator';
import { HermesError, McpFactory, McpServer, Prompt, Tool, createLogger } from '@hermes-mcp/core';
import { DependencyContainer, defaultContainer } from '../../src/container';
import { CursorCodec } from '../../src/bootstrap/cursor';
import { Registry } from '../../src/bootstrap/registry';
import { scanServer } from '../../src/bootstrap/scanner';
import { buildObjectSchema, schemaWarningsFor } from '../../src/schema/schema-builder';
import { validateInput } from '../../src/validation/validator';

class Address {
  @IsString() city!: string;
}

class Order {
  @ValidateNested() @Type(() => Address) shipping!: Address;
  @IsDefined() @ValidateNested() @Type(() => Address) billing!: Address;
  @IsOptional() @ValidateNested() @Type(() => Address) pickup?: Address;
  @ValidateIf((order: Order) => order.billing !== undefined) @ValidateNested() @Type(() => Address) returns?: Address;
  // Another rule refuses a missing value: nothing to say.
  @IsNotEmptyObject() @ValidateNested() @Type(() => Address) invoice!: Address;
  @IsArray() @ValidateNested({ each: true }) @Type(() => Address) stops!: Address[];
  @ValidateNested({ each: true }) @Type(() => Address) alternates!: Address[];
}

const NESTED_MESSAGE = (where: string) =>
  `${where}: @ValidateNested() without @IsDefined() or @IsOptional() lets the input leave it out ` +
  `(class-validator skips nested validation of a missing value; it only refuses null). ` +
  `Add @IsDefined() to require it, or @IsOptional() to say it may be absent.`;

describe('schemaWarningsFor', () => {
  it('warns about @ValidateNested() that class-validator lets be missing, naming the class, the property and the fix', () => {
    expect(schemaWarningsFor(Order).filter((warning) => warning.code === 'HERMES_OPTIONAL_NESTED')).toEqual([
      { code: 'HERMES_OPTIONAL_NESTED', className: 'Order', property: 'shipping', message: NESTED_MESSAGE('Order.shipping') },
      { code: 'HERMES_OPTIONAL_NESTED', className: 'Order', property: 'alternates', message: NESTED_MESSAGE('Order.alternates') },
    ]);
  });

  it('says a @ValidateIf() field is published without the rules its condition guards (looser)', () => {
    expect(buildObjectSchema(Order).properties?.returns).toEqual({});
    expect(buildObjectSchema(Order).required).not.toContain('returns');
    expect(schemaWarningsFor(Order).filter((warning) => warning.code === 'HERMES_SCHEMA_LOOSER')).toEqual([
      {
        code: 'HERMES_SCHEMA_LOOSER',
        className: 'Order',
        property: 'returns',
        rule: '@ValidateIf()',
        reason: 'its condition (code): the schema has none of the rules it guards, and does not require the field',
        message:
          'Order.returns: the published schema accepts more than @ValidateIf() does: JSON Schema cannot say its condition (code): ' +
          'the schema has none of the rules it guards, and does not require the field; validation refuses the rest.',
      },
    ]);
  });

  it('says what class-validator does: the input without the property passes', () => {
    const full = { billing: { city: 'a' }, invoice: { city: 'b' }, stops: [] };
    expect(validateInput(Order, full).ok).toBe(true);
    expect(validateInput(Order, { ...full, shipping: null }).ok).toBe(false);
    expect(validateInput(Order, { ...full, billing: undefined }).ok).toBe(false);
  });

  it('covers nested classes and names the class that declares the property', () => {
    class Base {
      @ValidateNested() @Type(() => Address) home!: Address;
    }
    class Person extends Base {
      @IsString() name!: string;
    }
    class Team {
      @IsDefined() @ValidateNested() @Type(() => Person) lead!: Person;
    }
    expect(schemaWarningsFor(Team).map((w) => [w.className, w.property])).toEqual([['Base', 'home']]);
  });

  it('warns about dates that JSON cannot carry without @Type(() => Date)', () => {
    class Meeting {
      @IsDate() at!: Date;
      @Type(() => Date) @IsDate() ends!: Date;
      @IsOptional() @MaxDate(() => new Date()) booked?: Date;
    }
    expect(schemaWarningsFor(Meeting).filter((warning) => warning.code === 'HERMES_DATE_WITHOUT_TYPE')).toEqual([
      {
        code: 'HERMES_DATE_WITHOUT_TYPE',
        className: 'Meeting',
        property: 'at',
        message:
          'Meeting.at: @IsDate() without @Type(() => Date) refuses every input: JSON has no dates, and the value stays a string. ' +
          'Add @Type(() => Date) (class-transformer) to turn an ISO 8601 string into a Date, or take the string with @IsDateString().',
      },
      expect.objectContaining({ code: 'HERMES_DATE_WITHOUT_TYPE', property: 'booked', message: expect.stringMatching(/^Meeting\.booked: @MaxDate\(\) without/) }),
    ]);
    expect(validateInput(Meeting, { at: '2024-05-01T10:00:00Z', ends: '2024-05-01T11:00:00Z' }).ok).toBe(false);
  });

  it('has nothing to say about ordinary classes', () => {
    expect(schemaWarningsFor(Address)).toEqual([]);
  });
});

describe('scanServer: warnings for the factory to log', () => {
  const scan = (cls: Function, container: DependencyContainer = defaultContainer()) => scanServer(cls as new () => unknown, container, new Registry(100, new CursorCodec()));

  it('gathers the warnings of tool inputs and outputs and prompt arguments, once per class and property', () => {
    class Result {
      @ValidateNested() @Type(() => Address) where!: Address;
    }
    class Args {
      @IsString() near!: string;
    }
    @McpServer({ name: 'w', version: '1' })
    class Server {
      @Tool() place(_order: Order) {
        return 'ok';
      }
      @Tool() again(_order: Order) {
        return 'ok';
      }
      @Tool({ output: Result }) locate(_address: Address) {
        return { where: { city: 'x' } };
      }
      @Prompt() suggest(_args: Args) {
        return 'x';
      }
    }
    const { warnings } = scan(Server);
    expect(warnings.map((w) => `${w.code} ${w.className}.${w.property}`)).toEqual([
      'HERMES_OPTIONAL_NESTED Order.shipping',
      'HERMES_SCHEMA_LOOSER Order.returns',
      'HERMES_OPTIONAL_NESTED Order.alternates',
      'HERMES_OPTIONAL_NESTED Result.where',
    ]);
  });

  describe('HERMES_DATE_WITHOUT_TYPE: a date JSON cannot carry', () => {
    class Stamp {
      @Type(() => Date) @IsDate() at!: Date;
    }
    class Slot {
      @IsDefined() @ValidateNested() @Type(() => Stamp) stamp!: Stamp;
      @IsOptional() @MinDate(new Date(0)) after?: Date;
    }
    class Booked {
      @IsDate() at!: Date;
    }
    const refusal = (register: () => unknown): HermesError => {
      try {
        register();
      } catch (error) {
        return error as HermesError;
      }
      throw new Error('not refused');
    };

    it('refuses a tool input, a prompt argument class and a nested class at bootstrap, naming the class, the field and the fix', () => {
      @McpServer({ name: 'dates', version: '1' })
      class Dates {}
      const app = McpFactory.create(Dates, { logger: createLogger({ level: 'silent' }) });
      const inTool = refusal(() => app.addTool({ name: 'book', input: Booked }, () => 'ok'));
      expect(inTool).toBeInstanceOf(HermesError);
      expect(inTool.code).toBe('HERMES_DATE_WITHOUT_TYPE');
      expect(inTool.message).toBe(
        'HERMES_DATE_WITHOUT_TYPE: Booked.at: @IsDate() without @Type(() => Date) refuses every input: JSON has no dates, and the value stays a string. ' +
          'Add @Type(() => Date) (class-transformer) to turn an ISO 8601 string into a Date, or take the string with @IsDateString().',
      );
      expect(refusal(() => app.addPrompt({ name: 'plan', args: Booked }, () => 'ok')).code).toBe('HERMES_DATE_WITHOUT_TYPE');
      class Holder {
        @IsDefined() @ValidateNested() @Type(() => Slot) slot!: Slot;
      }
      expect(refusal(() => app.addTool({ name: 'hold', input: Holder }, () => 'ok')).message).toMatch(/Slot\.after: @MinDate\(\) without @Type/);
      // Nothing was registered by the refused calls.
      expect(app.addTool({ name: 'book', input: Stamp }, () => 'ok')).toBeDefined();
    });

    it('lets an output class hold Dates (what a Date is sent as is its schema)', () => {
      @McpServer({ name: 'dates-out', version: '1' })
      class DatesOut {}
      const app = McpFactory.create(DatesOut, { logger: createLogger({ level: 'silent' }) });
      expect(() => app.addTool({ name: 'when', output: Booked }, () => ({ at: new Date(0) }))).not.toThrow();
    });
  });

  it('has none for a server without such rules', () => {
    @McpServer({ name: 'q', version: '1' })
    class Quiet {
      @Tool() echo(input: Address) {
        return input.city;
      }
    }
    expect(scan(Quiet).warnings).toEqual([]);
  });
});

@ValidatorConstraint({ name: 'isEven' })
class IsEven implements ValidatorConstraintInterface {
  validate(value: unknown) {
    return typeof value === 'number' && value % 2 === 0;
  }
}

class Payment {
  @IsCreditCard() card!: string;
  @IsEmail() email!: string;
  @Validate(IsEven) pairs!: number;
  @Matches(/^[a-z]+$/i) code!: string; // a pattern says it: exact, no warning
  @Matches(/^(a)\1$/) twice!: string; // a back-reference: no pattern says it
}

const LOOSER_FIELDS = [
  "Payment.card @IsCreditCard(): a card number's Luhn checksum",
  'Payment.email @IsEmail(): validator.js\'s address grammar (format "email" takes some addresses it refuses, and refuses some it takes)',
  'Payment.pairs @Validate(IsEven): what its code checks',
  'Payment.twice @Matches(): this regular expression (a back-reference, a look-around, or `.` that counts a character beyond the BMP as two)',
];

describe('HERMES_SCHEMA_LOOSER: a rule JSON Schema cannot say', () => {
  it('is a warning per field, naming the decorator and what the schema cannot say', () => {
    const warnings = schemaWarningsFor(Payment);
    expect(warnings.map((w) => `${w.className}.${w.property} ${w.rule}: ${w.reason}`)).toEqual(LOOSER_FIELDS);
    expect(warnings[0]).toEqual({
      code: 'HERMES_SCHEMA_LOOSER',
      className: 'Payment',
      property: 'card',
      rule: '@IsCreditCard()',
      reason: "a card number's Luhn checksum",
      message: "Payment.card: the published schema accepts more than @IsCreditCard() does: JSON Schema cannot say a card number's Luhn checksum; validation refuses the rest.",
    });
  });

  /** The lines a server's bootstrap logs, as JSON. */
  async function bootLog(options: { warnLooserSchemas?: boolean }): Promise<Array<Record<string, unknown>>> {
    const lines: Array<Record<string, unknown>> = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    @McpServer({ name: 'pay', version: '1' })
    class Pay {
      @Tool() pay(input: Payment) {
        return input.card;
      }
      @Tool() again(input: Payment) {
        return input.card;
      }
    }
    const app = McpFactory.create(Pay, { logger: createLogger({ level: 'warn', destination }), ...options });
    await app.close();
    await new Promise((resolve) => setImmediate(resolve));
    return lines.filter((line) => line.code === 'HERMES_SCHEMA_LOOSER');
  }

  it('is logged by McpFactory.create at warn, once for the server, one line listing every field', async () => {
    const lines = await bootLog({});
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, fields: LOOSER_FIELDS });
    expect(lines[0].msg).toBe(
      `the published schema accepts more than validation for 4 field(s) (what JSON Schema cannot say; the server refuses the rest): ${LOOSER_FIELDS.join('; ')}. ` +
        'See docs/schemas.md; set `warnLooserSchemas: false` to silence this.',
    );
  });

  it('is silenced by warnLooserSchemas: false', async () => {
    expect(await bootLog({ warnLooserSchemas: false })).toEqual([]);
  });
});
