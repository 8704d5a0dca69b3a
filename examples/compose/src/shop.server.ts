import { McpServer, Middleware, Tool } from '@hermes-mcp/core';
import { BillingServer } from './billing.server';
import { CrmServer } from './crm.server';

/** The shop's middleware: it runs around every tool, the mounted ones included, and sees the names clients use. */
export const audit: Middleware = async (ctx, next) => {
  if (!ctx.listing) ctx.log.info({ name: ctx.request.params.name ?? ctx.request.params.uri }, 'called');
  return next();
};

/** One server in front of two: billing_refund, crm_lookup, invoices://billing/open… */
@McpServer({ name: 'shop', version: '1.0.0', use: [audit], mount: { billing: BillingServer, crm: CrmServer } })
export class ShopServer {
  @Tool({ description: 'Says whether the shop is open' })
  status() {
    return 'open';
  }
}
