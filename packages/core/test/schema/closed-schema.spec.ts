/**
 * `validation: { forbidNonWhitelisted: true }` refuses keys no rule names, in the input and in
 * nested objects: the published input schema then says `additionalProperties: false` at the root and
 * on every nested class, and agrees with a real `tools/call` both ways. Without the option, unknown
 * keys are stripped and accepted, and the schema lets them through.
 */
import 'reflect-metadata';
import Ajv2020 from 'ajv/dist/2020';
import { Type } from 'class-transformer';
import { IsOptional, IsString, ValidateNested } from 'class-validator';
import { McpFactory, McpServer, Tool, createLogger } from '@hermes-mcp/core';
import { createTestClient } from '@hermes-mcp/testing';

class Street {
  @IsString() name!: string;
}

class Address {
  @IsString() city!: string;
  @IsOptional() @ValidateNested() @Type(() => Street) street?: Street;
}

@McpServer({ name: 'closed', version: '1' })
class Addresses {
  @Tool() locate(input: Address) {
    return input.city;
  }
}

const INPUTS = [
  { city: 'Paris' },
  { city: 'Paris', zip: '75001' },
  { city: 'Paris', street: { name: 'Rivoli' } },
  { city: 'Paris', street: { name: 'Rivoli', number: 1 } },
  { city: 1 },
];

async function verdicts(forbidNonWhitelisted: boolean): Promise<{ schema: object; byServer: boolean[]; bySchema: boolean[] }> {
  const app = McpFactory.create(Addresses, { logger: createLogger({ level: 'silent' }), validation: { forbidNonWhitelisted } });
  const client = await createTestClient(app);
  try {
    const [tool] = await client.listTools();
    const check = new Ajv2020({ strict: true }).compile(tool.inputSchema);
    const byServer: boolean[] = [];
    for (const input of INPUTS) {
      byServer.push(
        await client.callTool('locate', input).then(
          (result) => result.isError !== true,
          () => false,
        ),
      );
    }
    return { schema: tool.inputSchema, byServer, bySchema: INPUTS.map((input) => check(input)) };
  } finally {
    await client.close();
  }
}

describe('forbidNonWhitelisted and the published schema', () => {
  it('says additionalProperties: false at the root and on nested classes, and agrees with tools/call', async () => {
    const { schema, byServer, bySchema } = await verdicts(true);
    // Street is written out where it is used (the default), closed there.
    expect(schema).toMatchObject({ additionalProperties: false, properties: { street: { anyOf: [{ additionalProperties: false }, { type: 'null' }] } } });
    expect(schema).not.toHaveProperty('$defs');
    expect(byServer).toEqual([true, false, true, false, false]);
    expect(bySchema).toEqual(byServer);
  });

  it('lets unknown keys through without it (they are stripped), as the server does', async () => {
    const { schema, byServer, bySchema } = await verdicts(false);
    expect(schema).not.toHaveProperty('additionalProperties');
    expect(byServer).toEqual([true, true, true, true, false]);
    expect(bySchema).toEqual(byServer);
  });
});
