/**
 * The `authenticate` extension point, on both HTTP adapters (the Fastify plugin and the
 * Web-standard handler behind Node's HTTP server): it runs on every route before anything else but
 * the Host/Origin check; what it returns is `ctx.auth` in both eras and on the 2024-11-05
 * transport; an HttpError it throws is answered with its status and headers; any other error is
 * a 500 and is logged. Also `ToolError.details`, sent as `structuredContent`.
 */
import 'reflect-metadata';
import { IsString } from 'class-validator';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AuthInfo, HttpEndpointOptions, HttpError, HttpRequest, McpContext, McpServer, Middleware, Tool, ToolError, Use } from '@hermes-mcp/core';
import { ADAPTERS, Serving, serveOn } from '../../../../test-support/adapters';
import { ACCEPT_BOTH, capturingLogger, messagesOf, modernPost, rpc } from '../../../../test-support/hardening';

class NoteInput {
  @IsString() text!: string;
}

/** A guard on ctx.auth: callers without `notes:write` neither see nor call what it guards. */
const needsWrite: Middleware = (ctx, next) => {
  if (!ctx.auth?.scopes?.includes('notes:write')) throw new ToolError('notes:write is required');
  return next();
};

@McpServer({ name: 'auth-test', version: '1.0.0' })
class WhoAmI {
  @Tool({ description: 'Who the caller is' })
  whoami(ctx: McpContext) {
    return { subject: ctx.auth?.subject ?? 'anonymous', scopes: [...(ctx.auth?.scopes ?? [])] };
  }

  @Use(needsWrite)
  @Tool({ description: 'Writes a note (needs notes:write)' })
  write(input: NoteInput) {
    return `wrote ${input.text}`;
  }

  @Tool({ description: 'Refuses with details' })
  refuse(input: NoteInput) {
    throw new ToolError(`not allowed: ${input.text}`, { reason: 'policy', text: input.text });
  }
}

/** Bearer tokens this test knows: `alice` reads and writes, `bob` reads, `boom` breaks the hook. */
const authenticate: NonNullable<HttpEndpointOptions['authenticate']> = async (request: HttpRequest): Promise<AuthInfo | undefined> => {
  const header = request.headers.authorization;
  if (header === undefined) return undefined;
  const token = String(header).replace(/^Bearer /, '');
  if (token === 'alice') return { subject: 'alice', scopes: ['notes:read', 'notes:write'] };
  if (token === 'bob') return { subject: 'bob', scopes: ['notes:read'] };
  if (token === 'boom') throw new Error('the token service is down');
  throw new HttpError(401, 'Unauthorized: unknown token', { 'www-authenticate': 'Bearer error="invalid_token"' });
};

const { logger, lines } = capturingLogger('error');

describe.each(ADAPTERS)('authenticate on the %s adapter', (adapter) => {
  let running: Serving;
  beforeAll(async () => (running = await serveOn(adapter, WhoAmI, () => ({ authenticate }), { logger })));
  afterAll(() => running.close());

  it('gives handlers ctx.auth over Streamable HTTP, per request, and nothing to anonymous callers', async () => {
    const client = new Client({ name: 'alice', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(running.url), { requestInit: { headers: { authorization: 'Bearer alice' } } }));
    try {
      expect((await client.callTool({ name: 'whoami', arguments: {} })).structuredContent).toEqual({ subject: 'alice', scopes: ['notes:read', 'notes:write'] });
    } finally {
      await client.close();
    }
    const anonymous = new Client({ name: 'anon', version: '1' });
    await anonymous.connect(new StreamableHTTPClientTransport(new URL(running.url)));
    try {
      expect((await anonymous.callTool({ name: 'whoami', arguments: {} })).structuredContent).toEqual({ subject: 'anonymous', scopes: [] });
    } finally {
      await anonymous.close();
    }
  });

  it('lets a guard on ctx.auth hide a tool from callers without the scope, and refuse it when called anyway', async () => {
    const names = async (token: string) => {
      const client = new Client({ name: token, version: '1' });
      await client.connect(new StreamableHTTPClientTransport(new URL(running.url), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
      try {
        const tools = (await client.listTools()).tools.map((t) => t.name);
        const call = await client.callTool({ name: 'write', arguments: { text: 'hi' } });
        return { tools, call: call.content };
      } finally {
        await client.close();
      }
    };
    expect(await names('alice')).toEqual({ tools: ['whoami', 'write', 'refuse'], call: [{ type: 'text', text: 'wrote hi' }] });
    expect(await names('bob')).toEqual({ tools: ['whoami', 'refuse'], call: [{ type: 'text', text: 'notes:write is required' }] });
  });

  it('gives ctx.auth to 2026-07-28 requests and over the 2024-11-05 HTTP+SSE transport', async () => {
    const modern = await modernPost(
      running.url,
      1,
      'tools/call',
      { name: 'whoami', arguments: {} },
      {
        headers: {
          'content-type': 'application/json',
          accept: ACCEPT_BOTH,
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'whoami',
          authorization: 'Bearer bob',
        },
      },
    );
    expect(modern.status).toBe(200);
    expect(await messagesOf(modern)).toEqual([
      expect.objectContaining({ id: 1, result: expect.objectContaining({ structuredContent: { subject: 'bob', scopes: ['notes:read'] } }) }),
    ]);

    const headers = { authorization: 'Bearer bob' };
    const client = new Client({ name: 'bob-sse', version: '1' });
    await client.connect(
      new SSEClientTransport(new URL(`${running.url}/sse`), {
        requestInit: { headers },
        eventSourceInit: { fetch: (url, init) => fetch(url, { ...init, headers: { ...(init?.headers as Record<string, string>), ...headers } }) },
      }),
    );
    try {
      expect((await client.callTool({ name: 'whoami', arguments: {} })).structuredContent).toEqual({ subject: 'bob', scopes: ['notes:read'] });
    } finally {
      await client.close();
    }
  });

  it('answers an HttpError with its status and headers on every route, and a broken hook with 500', async () => {
    const bad = { authorization: 'Bearer mallory', 'content-type': 'application/json', accept: ACCEPT_BOTH };
    const post = await fetch(running.url, {
      method: 'POST',
      headers: bad,
      body: JSON.stringify(rpc(1, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'm', version: '1' } })),
    });
    expect(post.status).toBe(401);
    expect(post.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect(await post.json()).toMatchObject({ error: { code: -32600, message: 'Unauthorized: unknown token' } });
    for (const [method, path] of [
      ['GET', ''],
      ['DELETE', ''],
      ['GET', '/sse'],
    ] as const) {
      const refused = await fetch(`${running.url}${path}`, { method, headers: { ...bad, accept: 'text/event-stream', 'mcp-session-id': 'x' } });
      expect([method, path, refused.status]).toEqual([method, path, 401]);
      await refused.text();
    }
    const messages = await fetch(`${running.url}/messages?sessionId=x`, { method: 'POST', headers: bad, body: JSON.stringify(rpc(1, 'ping')) });
    expect(messages.status).toBe(401);
    const before = lines.length;
    const broken = await fetch(running.url, { method: 'POST', headers: { ...bad, authorization: 'Bearer boom' }, body: JSON.stringify(rpc(1, 'ping')) });
    expect(broken.status).toBe(500);
    expect(await broken.json()).toMatchObject({ error: { code: -32603 } });
    expect(lines.slice(before).some((line) => line.msg === 'the authenticate hook failed')).toBe(true);
  });

  it('sends ToolError.details as structuredContent', async () => {
    const client = new Client({ name: 'details', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(running.url)));
    try {
      const result = await client.callTool({ name: 'refuse', arguments: { text: 'that' } });
      expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: 'not allowed: that' }], structuredContent: { reason: 'policy', text: 'that' } });
    } finally {
      await client.close();
    }
  });
});
