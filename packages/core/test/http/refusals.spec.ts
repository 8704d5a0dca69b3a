/**
 * The HTTP refusal catalog (`HTTP_REFUSALS`, core/src/transports/http/refusals.ts): docs/errors.md
 * lists the same rows, and the adapters answer with them — the Web handler behind a real Node
 * HTTP server on 127.0.0.1, driven by raw fetch.
 */
import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { McpServer, Tool, createWebHandler, toNodeListener } from '@hermes-mcp/core';
import { HTTP_REFUSALS } from '@hermes-mcp/core/adapter';

@McpServer({ name: 'refusals-test', version: '1.0.0' })
class Plain {
  @Tool({ description: 'Says hello' })
  hello() {
    return 'hello';
  }
}

describe('the HTTP refusal catalog', () => {
  const doc = readFileSync(join(__dirname, '../../../../docs/errors.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## HTTP refusals'), doc.indexOf('\n## ', doc.indexOf('## HTTP refusals') + 1));

  it('is listed in docs/errors.md ("HTTP refusals"): every name, in order, with its status and code', () => {
    const documented = [...section.matchAll(/^\| `([A-Z_]+)` \| (\d{3}) \| (-\d+) \|/gm)].map((m) => [m[1], Number(m[2]), Number(m[3])]);
    expect(documented).toEqual(Object.entries(HTTP_REFUSALS).map(([name, refusal]) => [name, refusal.status, refusal.code]));
  });

  it('has a message for every row that says what to do, not only what went wrong', () => {
    // A row's message names an option, a header, a method or what to send, or tells the client to retry.
    const advice =
      /\((allowedHosts|allowedOrigins|\w+ option|bodyLimit|bodyTimeout|max\w+|Content-Type|Sec-WebSocket-Protocol)|option|allowed:|served at|first|retry|try again|use |send|POST|GET|Accept header/;
    // The Host/Origin check's problem names the option to change (origin.ts).
    const samples: Partial<Record<string, unknown[]>> = {
      FORBIDDEN_ORIGIN: ['the Origin "https://evil.example" is not allowed (allowedOrigins)'],
      UNSUPPORTED_VERSION_HEADER: ['1999-01-01', ['2025-11-25']],
    };
    for (const [name, refusal] of Object.entries(HTTP_REFUSALS)) {
      const message = (refusal.message as (...args: unknown[]) => string)(...(samples[name] ?? ['x', 'y', 'z']));
      expect([name, advice.test(message)]).toEqual([name, true]);
    }
  });

  it('is what the Web handler answers: 415, 406, 404, 405 and 400 are rows of the catalog', async () => {
    const handler = createWebHandler(Plain, { path: '/mcp' });
    const server: Server = createServer(toNodeListener(handler));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const expectRefusal = async (response: Response, refusal: { status: number; code: number; message: (...args: never[]) => string }, ...args: unknown[]) => {
        expect(response.status).toBe(refusal.status);
        expect(await response.json()).toEqual({
          jsonrpc: '2.0',
          error: { code: refusal.code, message: (refusal.message as (...a: unknown[]) => string)(...args) },
        });
      };
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
      await expectRefusal(await fetch(`${url}/mcp`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body }), HTTP_REFUSALS.UNSUPPORTED_MEDIA_TYPE);
      await expectRefusal(
        await fetch(`${url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body }),
        HTTP_REFUSALS.NOT_ACCEPTABLE_POST,
      );
      await expectRefusal(await fetch(`${url}/elsewhere`), HTTP_REFUSALS.NOT_FOUND, '/mcp');
      const put = await fetch(`${url}/mcp`, { method: 'PUT' });
      expect(put.headers.get('allow')).toBe('GET, POST, DELETE, OPTIONS');
      await expectRefusal(put, HTTP_REFUSALS.METHOD_NOT_ALLOWED, 'PUT', '/mcp', 'GET, POST, DELETE, OPTIONS');
      await expectRefusal(await fetch(`${url}/mcp`, { headers: { accept: 'text/event-stream' } }), HTTP_REFUSALS.SESSION_ID_REQUIRED);
      await expectRefusal(
        await fetch(`${url}/mcp/messages?sessionId=nope`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }),
        HTTP_REFUSALS.SSE_SESSION_NOT_FOUND,
        '/mcp',
      );
    } finally {
      await handler.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
