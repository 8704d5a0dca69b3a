/**
 * Local mounts, driven through the real engine by the in-process test client in both eras: names
 * and URIs prefixed in every list, calls, reads and prompts routed to the mounted class (which sees
 * its own names), completions, middleware order, scopes, typedi, nested mounts, and the
 * notifications a mounted class sends coming out with the prefixed URI.
 */
import 'reflect-metadata';
import { IsIn, IsString } from 'class-validator';
import { Service } from 'typedi';
import { AppResource, McpApp, McpContext, McpFactory, McpServer, Middleware, Prompt, Resource, Tool, ToolError, Use, createLogger, isolatedContainer } from '@hermes-mcp/core';
import { createTestClient, textOf } from '@hermes-mcp/testing';

const logger = createLogger({ level: 'silent' });
const ERAS = ['legacy', 'modern'] as const;

/** Middleware that writes `name>` before and `<name` after, with the name or URI it saw. */
function mark(trail: string[], name: string): Middleware {
  return async (ctx, next) => {
    if (ctx.listing) return next();
    const params = ctx.request.params;
    trail.push(`${name}>${String(params.name ?? params.uri)}`);
    const result = await next();
    trail.push(`<${name}`);
    return result;
  };
}

class RefundInput {
  @IsString() id!: string;
}

class InvoiceParams {
  @IsString() id!: string;
}

class RemindArgs {
  @IsIn(['gentle', 'firm']) tone!: string;
}

@Service()
class Ledger {
  readonly refunded: string[] = [];
}

const trail: string[] = [];

@Use(mark(trail, 'billing-class'))
@McpServer({ name: 'billing', version: '1.0.0', use: [mark(trail, 'billing-server')] })
class BillingServer {
  constructor(private readonly ledger: Ledger) {}

  @Use(mark(trail, 'refund-method'))
  @Tool({ description: 'Refunds an invoice' })
  refund(input: RefundInput, ctx: McpContext) {
    this.ledger.refunded.push(input.id);
    trail.push('refund');
    return `refunded ${input.id} (called as ${String(ctx.request.params.name)})`;
  }

  @Tool({ description: 'Changes every invoice' })
  touch(ctx: McpContext) {
    ctx.notifyResourceUpdated('invoices://all'); // its own URI: prefixed on the way out
    McpApp.of(ctx).notifyResourceUpdated('invoices://billing/invoice/7'); // the app's: the URI clients see
    return 'touched';
  }

  @Resource({ uri: 'invoices://all', mimeType: 'text/plain' })
  all(ctx: McpContext) {
    return `all (read as ${String(ctx.request.params.uri)})`;
  }

  @Resource({ uri: 'invoices://invoice/{id}', mimeType: 'text/plain', complete: { id: (value) => ['a1', 'a2', 'b1'].filter((id) => id.startsWith(value)) } })
  invoice(params: InvoiceParams, ctx: McpContext) {
    return { contents: [{ uri: `invoices://invoice/${params.id}`, mimeType: 'text/plain', text: `invoice ${params.id} (read as ${String(ctx.request.params.uri)})` }] };
  }

  @Prompt({ description: 'A reminder' })
  remind(args: RemindArgs) {
    return `Pay, said ${args.tone}ly.`;
  }
}

@McpServer({ name: 'shop', version: '1.0.0', use: [mark(trail, 'shop')], mount: { billing: BillingServer } })
class ShopServer {
  @Tool() ping() {
    return 'pong';
  }
}

describe.each(ERAS)('a mounted server (%s era)', (era) => {
  beforeEach(() => void trail.splice(0));

  it('lists its tools, resources, templates and prompts under the namespace', async () => {
    const client = await createTestClient(ShopServer, { era });
    expect((await client.listTools()).map((t) => t.name)).toEqual(['ping', 'billing_refund', 'billing_touch']);
    expect((await client.listTools())[1]).toMatchObject({ description: 'Refunds an invoice', inputSchema: { type: 'object', properties: { id: { type: 'string' } } } });
    expect(await client.listResources()).toEqual([expect.objectContaining({ uri: 'invoices://billing/all', name: 'all', mimeType: 'text/plain' })]);
    expect(await client.listResourceTemplates()).toEqual([expect.objectContaining({ uriTemplate: 'invoices://billing/invoice/{id}', name: 'invoice' })]);
    expect(await client.listPrompts()).toEqual([expect.objectContaining({ name: 'billing_remind', description: 'A reminder' })]);
    expect(client.serverInfo).toMatchObject({ name: 'shop' });
    await client.close();
  });

  it('calls a mounted tool: the mounting server middleware outside, the mounted server, class and method middleware inside, all seeing the name the client sent', async () => {
    const client = await createTestClient(ShopServer, { era });
    const result = await client.callTool('billing_refund', { id: 'a1' });
    expect(textOf(result)).toBe('refunded a1 (called as billing_refund)');
    expect(trail).toEqual([
      'shop>billing_refund',
      'billing-server>billing_refund',
      'billing-class>billing_refund',
      'refund-method>billing_refund',
      'refund',
      '<refund-method',
      '<billing-class',
      '<billing-server',
      '<shop',
    ]);
    const invalid = await client.callTool('billing_refund', { id: 7 });
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toMatch(/Invalid arguments for tool "billing_refund"/);
    await expect(client.callTool('refund', { id: 'a1' })).rejects.toMatchObject({ code: -32602 });
    await client.close();
  });

  it('reads a mounted resource and template by their prefixed URIs; contents the class names by its own URIs reach the client prefixed', async () => {
    const client = await createTestClient(ShopServer, { era });
    expect((await client.readResource('invoices://billing/all')).contents).toEqual([
      { uri: 'invoices://billing/all', mimeType: 'text/plain', text: 'all (read as invoices://billing/all)' },
    ]);
    expect((await client.readResource('invoices://billing/invoice/7')).contents).toEqual([
      { uri: 'invoices://billing/invoice/7', mimeType: 'text/plain', text: 'invoice 7 (read as invoices://billing/invoice/7)' },
    ]);
    await expect(client.readResource('invoices://all')).rejects.toMatchObject({ code: era === 'modern' ? -32602 : -32002 });
    await client.close();
  });

  it('gets a mounted prompt and completes its arguments and the template variables by their prefixed names', async () => {
    const client = await createTestClient(ShopServer, { era });
    expect((await client.getPrompt('billing_remind', { tone: 'firm' })).messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Pay, said firmly.' } }]);
    expect(client.serverCapabilities.completions).toEqual({});
    expect((await client.complete({ type: 'ref/prompt', name: 'billing_remind' }, { name: 'tone', value: 'g' })).values).toEqual(['gentle']);
    expect((await client.complete({ type: 'ref/resource', uri: 'invoices://billing/invoice/{id}' }, { name: 'id', value: 'a' })).values).toEqual(['a1', 'a2']);
    await expect(client.complete({ type: 'ref/resource', uri: 'invoices://invoice/{id}' }, { name: 'id', value: 'a' })).rejects.toMatchObject({ code: -32602 });
    await client.close();
  });
});

describe('notifications from a mounted server', () => {
  it('a legacy session subscribed to the prefixed URI hears the mounted class notify its own URI (ctx) or the prefixed one (the app)', async () => {
    const client = await createTestClient(ShopServer, { era: 'legacy' });
    await client.request('resources/subscribe', { uri: 'invoices://billing/all' });
    await client.request('resources/subscribe', { uri: 'invoices://billing/invoice/7' });
    expect(textOf(await client.callTool('billing_touch'))).toBe('touched');
    const updated = client.notifications.filter((n) => n.method === 'notifications/resources/updated').map((n) => n.params);
    expect(updated).toEqual([{ uri: 'invoices://billing/all' }, { uri: 'invoices://billing/invoice/7' }]);
    await client.close();
  });

  it('list_changed: a mounted tool switched off at runtime goes out of the list, and clients are told', async () => {
    const client = await createTestClient(ShopServer, { era: 'legacy' });
    client.app.tool('billing_touch').disable();
    await new Promise((resolve) => setImmediate(resolve));
    expect(client.notifications.map((n) => n.method)).toContain('notifications/tools/list_changed');
    expect((await client.listTools()).map((t) => t.name)).toEqual(['ping', 'billing_refund']);
    await client.close();
  });
});

describe('what a mounted server keeps', () => {
  it('typedi builds the mounted class with its dependencies, in the app container', async () => {
    const container = isolatedContainer('mount-typedi');
    const client = await createTestClient(ShopServer, { appOptions: { logger, container } });
    await client.callTool('billing_refund', { id: 'x9' });
    expect(container.get(Ledger).refunded).toEqual(['x9']);
    expect(container.get(BillingServer)).toBeInstanceOf(BillingServer);
    await client.close();
  });

  it('its scopes and the mounting server scopes both guard it, and hide it from callers without them', async () => {
    @McpServer({ name: 'vault', version: '1', scopes: ['vault:read'] })
    class Vault {
      @Tool({ scopes: ['vault:open'] }) open() {
        return 'opened';
      }
      @Tool() peek() {
        return 'peeked';
      }
    }
    @McpServer({ name: 'bank', version: '1', scopes: ['bank'], mount: { vault: Vault } })
    class Bank {
      @Tool() hello() {
        return 'hi';
      }
    }
    for (const era of ERAS) {
      const none = await createTestClient(Bank, { era, auth: { subject: 'a', scopes: [] } });
      expect((await none.listTools()).map((t) => t.name)).toEqual([]);
      await expect(none.callTool('vault_peek')).rejects.toMatchObject({ code: -32012 });
      await none.close();
      const bankOnly = await createTestClient(Bank, { era, auth: { subject: 'a', scopes: ['bank'] } });
      expect((await bankOnly.listTools()).map((t) => t.name)).toEqual(['hello']);
      await bankOnly.close();
      const reader = await createTestClient(Bank, { era, auth: { subject: 'a', scopes: ['bank', 'vault:read'] } });
      expect((await reader.listTools()).map((t) => t.name)).toEqual(['hello', 'vault_peek']);
      expect(textOf(await reader.callTool('vault_peek'))).toBe('peeked');
      const refused = await reader.callTool('vault_open').catch((error: unknown) => error);
      expect(refused).toMatchObject({ code: -32012 });
      await reader.close();
      const all = await createTestClient(Bank, { era, auth: { subject: 'a', scopes: ['bank', 'vault:read', 'vault:open'] } });
      expect(textOf(await all.callTool('vault_open'))).toBe('opened');
      await all.close();
    }
  });

  it('its guards decide what a caller sees in lists (with the names clients see)', async () => {
    const seen: string[] = [];
    const onlyPublic: Middleware = (ctx, next) => {
      if (ctx.listing) seen.push(ctx.listing.name);
      const name = ctx.listing?.name ?? String(ctx.request.params.name);
      if (name.startsWith('inner_secret')) throw new ToolError('hidden');
      return next();
    };
    @McpServer({ name: 'inner', version: '1', use: [onlyPublic] })
    class Inner {
      @Tool() secretPlan() {
        return 'plan';
      }
      @Tool() publicPlan() {
        return 'public';
      }
    }
    @McpServer({ name: 'outer', version: '1', mount: { inner: Inner } })
    class Outer {}
    const client = await createTestClient(Outer);
    expect((await client.listTools()).map((t) => t.name)).toEqual(['inner_publicPlan']);
    expect(seen.sort()).toEqual(['inner_publicPlan', 'inner_secretPlan']);
    expect((await client.callTool('inner_secretPlan')).isError).toBe(true);
    await client.close();
  });

  it('mounted servers may mount others: the namespaces and URI parts nest, the middleware too', async () => {
    const order: string[] = [];
    @McpServer({ name: 'leaf', version: '1', use: [mark(order, 'leaf')] })
    class Leaf {
      @Tool() grow() {
        return 'grown';
      }
      @Tool() fall(ctx: McpContext) {
        ctx.notifyResourceUpdated('tree://leaf/9');
        return 'fell';
      }
      @Resource({ uri: 'tree://leaf/{id}' }) leaf(params: InvoiceParams, ctx: McpContext) {
        return `leaf ${params.id} as ${String(ctx.request.params.uri)}`;
      }
    }
    @McpServer({ name: 'branch', version: '1', use: [mark(order, 'branch')], mount: { leaf: Leaf }, mountSeparator: '.' })
    class Branch {}
    @McpServer({ name: 'trunk', version: '1', use: [mark(order, 'trunk')], mount: { branch: Branch } })
    class Trunk {}
    const client = await createTestClient(Trunk, { era: 'modern' });
    expect((await client.listTools()).map((t) => t.name)).toEqual(['branch_leaf.grow', 'branch_leaf.fall']);
    expect((await client.listResourceTemplates()).map((t) => t.uriTemplate)).toEqual(['tree://branch/leaf/leaf/{id}']);
    expect(textOf(await client.callTool('branch_leaf.grow'))).toBe('grown');
    expect(order).toEqual(['trunk>branch_leaf.grow', 'branch>branch_leaf.grow', 'leaf>branch_leaf.grow', '<leaf', '<branch', '<trunk']);
    expect((await client.readResource('tree://branch/leaf/leaf/3')).contents).toEqual([{ uri: 'tree://branch/leaf/leaf/3', text: 'leaf 3 as tree://branch/leaf/leaf/3' }]);
    await client.close();
    const session = await createTestClient(Trunk, { era: 'legacy' });
    await session.request('resources/subscribe', { uri: 'tree://branch/leaf/leaf/9' });
    await session.callTool('branch_leaf.fall');
    expect(session.notifications.filter((n) => n.method === 'notifications/resources/updated').map((n) => n.params)).toEqual([{ uri: 'tree://branch/leaf/leaf/9' }]);
    await session.close();
  });

  it.each(ERAS)('its tools ask the client (elicitation: a server→client request, or an MRTR round) and report progress, in the %s era', async (era) => {
    class NameForm {
      @IsString() name!: string;
    }
    @McpServer({ name: 'greeter', version: '1' })
    class Greeter {
      @Tool() async greet(ctx: McpContext) {
        await ctx.progress(1, 2, 'asking');
        const answer = await ctx.elicit('Who are you?', NameForm);
        await ctx.progress(2, 2, 'answered');
        return answer.action === 'accept' ? `hello ${answer.content.name}` : answer.action;
      }
    }
    @McpServer({ name: 'front', version: '1', use: [mark([], 'front')], mount: { hi: Greeter } })
    class Front {}
    const asked: string[] = [];
    const client = await createTestClient(Front, {
      era,
      onElicitation: (request) => {
        asked.push(request.message);
        return { action: 'accept', content: { name: 'Ada' } };
      },
    });
    const progress: Array<string | undefined> = [];
    expect(textOf(await client.callTool('hi_greet', {}, { onProgress: (update) => void progress.push(update.message) }))).toBe('hello Ada');
    expect(asked).toEqual(['Who are you?']);
    expect(progress).toEqual(era === 'legacy' ? ['asking', 'answered'] : ['asking', 'asking', 'answered']);
    await client.close();
  });

  it("the mounting server's middleware names its own URIs, after the mounted handler ran too", async () => {
    @McpServer({ name: 'feed', version: '1' })
    class Feed {
      @Tool() post(ctx: McpContext) {
        ctx.notifyResourceUpdated('feed://latest');
        return 'posted';
      }
    }
    const audit: Middleware = async (ctx, next) => {
      const result = await next();
      if (!ctx.listing) ctx.notifyResourceUpdated('audit://log');
      return result;
    };
    @McpServer({ name: 'site', version: '1', use: [audit], mount: { news: Feed }, capabilities: { resources: {} } })
    class Site {}
    const client = await createTestClient(Site, { era: 'legacy' });
    await client.request('resources/subscribe', { uri: 'feed://news/latest' });
    await client.request('resources/subscribe', { uri: 'audit://log' });
    expect(textOf(await client.callTool('news_post'))).toBe('posted');
    expect(client.notifications.filter((n) => n.method === 'notifications/resources/updated').map((n) => n.params)).toEqual([
      { uri: 'feed://news/latest' },
      { uri: 'audit://log' },
    ]);
    await client.close();
  });

  it('McpFactory.create mounts too, merged with the decorator, with its own separator', async () => {
    @McpServer({ name: 'crm', version: '1' })
    class Crm {
      @Tool() lookup() {
        return 'found';
      }
      @Prompt() greet() {
        return 'hello';
      }
    }
    const app = McpFactory.create(ShopServer, { logger, mount: { crm: Crm, billing: BillingServer }, mountSeparator: '-' });
    const client = await createTestClient(app, { era: 'modern' });
    expect((await client.listTools()).map((t) => t.name)).toEqual(['ping', 'billing-refund', 'billing-touch', 'crm-lookup']);
    expect((await client.listPrompts()).map((p) => p.name)).toEqual(['billing-remind', 'crm-greet']);
    expect(textOf(await client.callTool('crm-lookup'))).toBe('found');
    await client.close();
  });

  it('an MCP App view of a mounted server keeps its ui:// scheme, and its tool names the prefixed view', async () => {
    @McpServer({ name: 'counter', version: '1' })
    class Counter {
      @AppResource({ uri: 'ui://counter/view.html' }) view() {
        return '<html></html>';
      }
      @Tool({ ui: { resourceUri: 'ui://counter/view.html' } }) count() {
        return 'one';
      }
    }
    @McpServer({ name: 'host', version: '1', mount: { widgets: Counter } })
    class Host {}
    const client = await createTestClient(Host);
    const [tool] = await client.listTools();
    expect(tool).toMatchObject({ name: 'widgets_count', _meta: { ui: { resourceUri: 'ui://widgets/counter/view.html' }, 'ui/resourceUri': 'ui://widgets/counter/view.html' } });
    expect((await client.readResource('ui://widgets/counter/view.html')).contents).toEqual([
      expect.objectContaining({ uri: 'ui://widgets/counter/view.html', mimeType: 'text/html;profile=mcp-app', text: '<html></html>' }),
    ]);
    await client.close();
  });
});
