import { IsString } from 'class-validator';
import { McpServer, Tool } from '@hermes-mcp/core';

export class LookupInput {
  @IsString() email!: string;
}

@McpServer({ name: 'crm', version: '1.0.0' })
export class CrmServer {
  @Tool({ description: 'Finds a customer by email', annotations: { readOnlyHint: true } })
  lookup(input: LookupInput) {
    return { email: input.email, name: input.email.split('@')[0] };
  }
}
