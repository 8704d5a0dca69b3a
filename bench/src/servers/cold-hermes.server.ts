/**
 * Cold start, Hermes: the two-tool server a user writes first, served on stdio with every default
 * (`McpFactory.create(S).listen()`). The runner times spawn → `initialize` answered → `tools/list`
 * answered, in wall time and in the process's CPU.
 */
import 'reflect-metadata';
import { IsNumber, IsString } from 'class-validator';
import { McpFactory, McpServer, Tool } from '@hermes-mcp/core';

class AddInput {
  @IsNumber() a!: number;
  @IsNumber() b!: number;
}

class EchoInput {
  @IsString() text!: string;
}

@McpServer({ name: 'bench-cold', version: '1.0.0' })
class ColdServer {
  @Tool({ description: 'Adds two numbers' })
  add(input: AddInput) {
    return input.a + input.b;
  }

  @Tool({ description: 'Echoes a text' })
  echo(input: EchoInput) {
    return input.text;
  }
}

void McpFactory.create(ColdServer).listen();
