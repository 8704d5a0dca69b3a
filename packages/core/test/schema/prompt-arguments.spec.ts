/**
 * Prompt arguments are strings in MCP (`prompts/get` takes `{ [name]: string }`): an arguments class
 * whose property takes no string can never be satisfied, so the bootstrap refuses it
 * (HERMES_PROMPT_ARGUMENT_TYPE) and says how to fix it; converted with class-transformer, it works
 * over a real `prompts/get`.
 */
import 'reflect-metadata';
import { Transform, Type } from 'class-transformer';
import { IsBoolean, IsBooleanString, IsIn, IsInt, IsNumber, IsNumberString, IsOptional, IsString, Min, ValidateNested } from 'class-validator';
import { McpFactory, McpServer, Prompt } from '@hermes-mcp/core';
import { createTestClient, textOf } from '@hermes-mcp/testing';
import { HermesError } from '../../src/errors';
import { createLogger } from '../../src/logger';
import { promptArgumentsFor } from '../../src/schema/schema-builder';

class Place {
  @IsString() city!: string;
}

const refusal = (fn: () => unknown): HermesError => {
  try {
    fn();
  } catch (error) {
    return error as HermesError;
  }
  throw new Error('expected a HermesError');
};

describe('prompt arguments that take no string', () => {
  it.each([
    ['@IsInt()', [IsInt()], 'integer', /@IsNumberString\(\).*@Type\(\(\) => Number\)/],
    ['@IsOptional() @IsNumber()', [IsOptional(), IsNumber()], 'number', /@IsNumberString\(\)/],
    ['@Min(1)', [Min(1)], 'number', /@Type\(\(\) => Number\)/],
    ['@IsIn([1, 2])', [IsIn([1, 2])], 'integer', /@IsNumberString\(\)/],
    ['@IsBoolean()', [IsBoolean()], 'boolean', /@IsBooleanString\(\).*@Transform.*not @Type\(\(\) => Boolean\)/],
    ['@ValidateNested() @Type(() => Place)', [ValidateNested(), Type(() => Place)], 'object', /take a string/],
  ])('%s is refused at bootstrap, with the way to fix it', (_label, decorators, type, how) => {
    class Args {
      count!: unknown;
    }
    for (const decorator of [...decorators].reverse()) decorator(Args.prototype, 'count');
    const error = refusal(() => promptArgumentsFor(Args));
    expect(error).toBeInstanceOf(HermesError);
    expect(error.code).toBe('HERMES_PROMPT_ARGUMENT_TYPE');
    expect(error.message).toContain(`Args.count: prompt arguments are strings (MCP prompts/get), but this argument takes only a JSON ${type}`);
    expect(error.message).toMatch(how);
  });

  it('refuses a server with such a prompt in McpFactory.create', () => {
    class PageArgs {
      @IsInt() page!: number;
    }
    @McpServer({ name: 'p', version: '1' })
    class Pages {
      @Prompt() page(args: PageArgs) {
        return `page ${args.page}`;
      }
    }
    const logger = createLogger({ level: 'silent' });
    expect(() => McpFactory.create(Pages, { logger })).toThrow(/HERMES_PROMPT_ARGUMENT_TYPE: PageArgs\.page: prompt arguments are strings/);
  });

  it('takes string rules, and numbers and booleans converted from the string, over a real prompts/get', async () => {
    class Converted {
      @Type(() => Number) @IsInt() @Min(1) page!: number;
      @IsOptional() @Transform(({ value }) => value === 'true') @IsBoolean() verbose?: boolean;
      @IsOptional() @IsNumberString() size?: string;
      @IsOptional() @IsBooleanString() draft?: string;
    }
    @McpServer({ name: 'c', version: '1' })
    class Pages {
      @Prompt() page(args: Converted) {
        return `page ${JSON.stringify(args.page)} verbose ${JSON.stringify(args.verbose)}`;
      }
    }
    expect(promptArgumentsFor(Converted).map((argument) => argument.name)).toEqual(['page', 'verbose', 'size', 'draft']);
    const client = await createTestClient(Pages);
    try {
      expect(textOf(await client.getPrompt('page', { page: '5', verbose: 'true', size: '1.5', draft: '0' }))).toBe('page 5 verbose true');
      await expect(client.getPrompt('page', { page: 'five' })).rejects.toThrow(/page/);
    } finally {
      await client.close();
    }
  });
});
