import { IsIn, IsString } from 'class-validator';
import { Service } from 'typedi';
import { McpContext, McpServer, Middleware, Prompt, Resource, Tool, ToolError } from '@hermes-mcp/core';

export class RefundInput {
  @IsString() invoice!: string;
}

export class InvoiceParams {
  @IsString() id!: string;
}

export class ReminderArgs {
  @IsIn(['gentle', 'firm']) tone!: string;
}

/** The invoices billing knows (a database in a real server). */
@Service()
export class Invoices {
  readonly open = new Set(['inv-1', 'inv-2']);
}

/** Billing's own middleware: it runs around billing's tools, resources and prompts only, inside the shop's. */
const timed: Middleware = async (ctx, next) => {
  const started = performance.now();
  try {
    return await next();
  } finally {
    if (!ctx.listing) ctx.log.debug({ ms: performance.now() - started }, 'billing answered');
  }
};

@McpServer({ name: 'billing', version: '1.0.0', use: [timed] })
export class BillingServer {
  constructor(private readonly invoices: Invoices) {}

  @Tool({ description: 'Refunds an open invoice' })
  refund(input: RefundInput, ctx: McpContext) {
    if (!this.invoices.open.delete(input.invoice)) throw new ToolError(`no open invoice ${input.invoice}`);
    ctx.notifyResourceUpdated('invoices://open'); // its own URI: subscribers of invoices://billing/open hear it
    return `refunded ${input.invoice}`;
  }

  @Resource({ uri: 'invoices://open', mimeType: 'application/json', description: 'The open invoices' })
  openInvoices() {
    return [...this.invoices.open];
  }

  @Resource({ uri: 'invoices://invoice/{id}', mimeType: 'text/plain', complete: { id: (value) => ['inv-1', 'inv-2'].filter((id) => id.startsWith(value)) } })
  invoice(params: InvoiceParams) {
    return `${params.id}: ${this.invoices.open.has(params.id) ? 'open' : 'closed'}`;
  }

  @Prompt({ description: 'A payment reminder' })
  reminder(args: ReminderArgs) {
    return `Write a ${args.tone} payment reminder.`;
  }
}
