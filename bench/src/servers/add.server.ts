/**
 * The server every Hermes configuration of the bench serves: one validated `add(a, b)` tool.
 */
import 'reflect-metadata';
import { IsNumber } from 'class-validator';
import { McpContext, McpServer, Tool } from '@hermes-mcp/core';

/** Input of `add`: two numbers, validated by class-validator. */
export class AddInput {
  @IsNumber() a!: number;
  @IsNumber() b!: number;
}

/** One tool, `add`. */
@McpServer({ name: 'bench-add', version: '1.0.0' })
export class AddServer {
  /** `ctx.progress` sends one progress notification when the request carries a progressToken (and nothing otherwise), so the SSE configuration gets an SSE answer. */
  @Tool({ description: 'Adds two numbers' })
  async add(input: AddInput, ctx: McpContext) {
    await ctx.progress(1, 1);
    return input.a + input.b;
  }
}
