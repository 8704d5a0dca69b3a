/**
 * MCP 2026-07-28 requests through each HTTP adapter, driven with raw `fetch`: the `Mcp-Name` and
 * `Mcp-Param-*` headers are checked against the body, `handlerTimeout` holds as it does for
 * sessions, and closing the adapter ends listen streams and in-flight requests instead of
 * waiting on them forever.
 */
import 'reflect-metadata';
import { IsString } from 'class-validator';
import { McpAppOptions, McpContext, McpHeader, McpServer, Tool } from '@hermes-mcp/core';
import { SseReader } from '../../../../test-support/sse-reader';
import { untilAborted } from '../../../../test-support/e2e';
import { bounded } from '../../../../test-support/hardening';
import { ADAPTERS, Adapter, Serving, serveOn } from '../../../../test-support/adapters';

class RegionInput {
  @McpHeader('Region') @IsString() region!: string;
}

/** What the `wait` tool saw: that it started, and why its signal aborted. */
const waitTool = {
  started: () => undefined as void,
  aborted: (_reason: unknown) => undefined as void,
};

/** What the `later` tool saw when it looked, 150 ms after it started and without watching before. */
const laterTool = {
  started: () => undefined as void,
  looked: (_aborted: boolean, _reason: unknown) => undefined as void,
};

@McpServer({ name: 'modern', version: '1.0.0' })
class ModernServer {
  @Tool({ description: 'Echoes its region' })
  region(input: RegionInput) {
    return `region ${input.region}`;
  }

  @Tool({ description: 'Looks at its signal only after 150 ms' })
  async later(ctx: McpContext) {
    laterTool.started();
    await new Promise((resolve) => setTimeout(resolve, 150));
    laterTool.looked(ctx.signal.aborted, ctx.signal.reason);
    return 'looked';
  }

  @Tool({ description: 'Waits until its signal aborts' })
  async wait(ctx: McpContext) {
    waitTool.started();
    const reason = await untilAborted(ctx.signal);
    waitTool.aborted(reason);
    return 'stopped';
  }
}

const VERSION = '2026-07-28';
const META = { 'io.modelcontextprotocol/protocolVersion': VERSION, 'io.modelcontextprotocol/clientCapabilities': {} };

type Raw = Record<string, any>;

const servers: Serving[] = [];

/** A server on `adapter`; without forcing connections closed, so the adapter must end its own streams. */
async function start(adapter: Adapter, appOptions: McpAppOptions = {}): Promise<Serving> {
  const serving = await serveOn(adapter, ModernServer, undefined, { appOptions, forceCloseConnections: false });
  servers.push(serving);
  return serving;
}

afterAll(async () => {
  await Promise.all(servers.map((serving) => serving.close()));
});

/** A modern POST with the standard headers (`Mcp-Name` from the body unless `headers` says otherwise). */
function call(url: string, id: number, method: string, params: Raw, headers: Record<string, string | undefined> = {}): Promise<Response> {
  const name = typeof params.name === 'string' ? params.name : typeof params.uri === 'string' ? params.uri : undefined;
  const all: Record<string, string | undefined> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': VERSION,
    'mcp-method': method,
    'mcp-name': name,
    ...headers,
  };
  return fetch(url, {
    method: 'POST',
    headers: Object.fromEntries(Object.entries(all).filter((entry): entry is [string, string] => entry[1] !== undefined)),
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: META } }),
  });
}

/** A tools/call the client can walk away from: `running` settles with the error's name once aborted. */
function abortableCall(url: string, id: number, name: string): { running: Promise<unknown>; abort: () => void } {
  const client = new AbortController();
  const body = JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {}, _meta: META } });
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': VERSION,
    'mcp-method': 'tools/call',
    'mcp-name': name,
  };
  const running = fetch(url, { method: 'POST', headers, body, signal: client.signal }).catch((error: Error) => error.name);
  return { running, abort: () => client.abort() };
}

async function json(response: Response): Promise<{ status: number; body: Raw }> {
  return { status: response.status, body: (await response.json()) as Raw };
}

describe.each(ADAPTERS)('%s: MCP 2026-07-28', (adapter) => {
  describe('headers mirrored from the body (SEP-2243)', () => {
    it('accepts Mcp-Param-Region equal to the argument, literally or Base64-encoded', async () => {
      const { url } = await start(adapter);
      for (const header of ['eu-west', '=?base64?ZXUtd2VzdA==?=']) {
        const { status, body } = await json(await call(url, 1, 'tools/call', { name: 'region', arguments: { region: 'eu-west' } }, { 'mcp-param-region': header }));
        expect({ status, text: body.result?.content?.[0]?.text }).toEqual({ status: 200, text: 'region eu-west' });
      }
    });

    it.each([
      ['missing', undefined, /Mcp-Param-Region is missing/],
      ['different', 'us-east', /Mcp-Param-Region header value 'us-east' does not match/],
      ['badly encoded', '=?base64?ZXUtd2VzdA?=', /Mcp-Param-Region header value .* is invalid/],
    ])('refuses a %s Mcp-Param-Region with 400 and -32020, echoing the id', async (_case, header, message) => {
      const { url } = await start(adapter);
      const { status, body } = await json(await call(url, 7, 'tools/call', { name: 'region', arguments: { region: 'eu-west' } }, { 'mcp-param-region': header }));
      expect(status).toBe(400);
      expect(body.id).toBe(7);
      expect(body.error.code).toBe(-32020);
      expect(body.error.message).toMatch(message);
    });

    it('refuses a missing or different Mcp-Name with 400 and -32020; an unknown tool still gets -32602 in-band', async () => {
      const { url } = await start(adapter);
      const missing = await json(await call(url, 1, 'tools/call', { name: 'wait', arguments: {} }, { 'mcp-name': undefined }));
      expect({ status: missing.status, code: missing.body.error?.code }).toEqual({ status: 400, code: -32020 });
      const different = await json(await call(url, 2, 'tools/call', { name: 'wait', arguments: {} }, { 'mcp-name': 'region' }));
      expect({ status: different.status, code: different.body.error?.code }).toEqual({ status: 400, code: -32020 });
      const unknown = await json(await call(url, 3, 'tools/call', { name: 'nope', arguments: {} }));
      expect({ status: unknown.status, code: unknown.body.error?.code }).toEqual({ status: 200, code: -32602 });
    });
  });

  it('applies handlerTimeout: the handler sees its signal abort and the request gets -32001', async () => {
    const { url } = await start(adapter, { handlerTimeout: 50 });
    const aborted = new Promise<unknown>((resolve) => (waitTool.aborted = resolve));
    const { status, body } = await json(await bounded(call(url, 4, 'tools/call', { name: 'wait', arguments: {} }), 'the timed-out answer'));
    expect(status).toBe(200);
    expect(body).toMatchObject({ id: 4, error: { code: -32001 } });
    expect(await bounded(aborted, 'the tool to see its signal abort')).toMatchObject({ code: -32001 });
  });

  it('a client that closes its response cancels the request: the tool sees its signal abort with -32001', async () => {
    const { url } = await start(adapter);
    const started = new Promise<void>((resolve) => (waitTool.started = resolve));
    const aborted = new Promise<unknown>((resolve) => (waitTool.aborted = resolve));
    const { running, abort } = abortableCall(url, 8, 'wait');
    await bounded(started, 'the tool to start');
    abort();
    expect(await bounded(aborted, 'the tool to see its signal abort')).toMatchObject({ code: -32001, message: expect.stringMatching(/client closed the response/) });
    expect(await running).toBe('AbortError');
    const { status } = await json(await call(url, 9, 'tools/call', { name: 'region', arguments: { region: 'eu' } }, { 'mcp-param-region': 'eu' }));
    expect(status).toBe(200);
  });

  it('a tool that looks at its signal only after the client left still sees it aborted', async () => {
    const { url } = await start(adapter);
    const started = new Promise<void>((resolve) => (laterTool.started = resolve));
    const looked = new Promise<[boolean, unknown]>((resolve) => (laterTool.looked = (aborted, reason) => resolve([aborted, reason])));
    const { running, abort } = abortableCall(url, 10, 'later');
    await bounded(started, 'the tool to start');
    abort();
    expect(await running).toBe('AbortError');
    const [aborted, reason] = await bounded(looked, 'the tool to look');
    expect(aborted).toBe(true);
    expect(reason).toMatchObject({ code: -32001 });
    const { status, body: answer } = await json(await call(url, 11, 'tools/call', { name: 'later', arguments: {} }));
    expect({ status, text: answer.result?.content?.[0]?.text }).toEqual({ status: 200, text: 'looked' });
  });

  it('closing the adapter ends an open listen stream with its result at once, and answers a request still running after the grace period with -32010 (HTTP 503)', async () => {
    const closing = await start(adapter, { shutdownGracePeriod: 200 });
    servers.splice(servers.indexOf(closing), 1);
    const listen = await call(closing.url, 42, 'subscriptions/listen', { notifications: { toolsListChanged: true } });
    expect(listen.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = new SseReader(listen.body!);
    const ack = await bounded(events.next(), 'the acknowledgement');
    expect(JSON.parse(ack!.data)).toMatchObject({ method: 'notifications/subscriptions/acknowledged', params: { _meta: { 'io.modelcontextprotocol/subscriptionId': 42 } } });

    const started = new Promise<void>((resolve) => (waitTool.started = resolve));
    const aborted = new Promise<unknown>((resolve) => (waitTool.aborted = resolve));
    const running = call(closing.url, 5, 'tools/call', { name: 'wait', arguments: {} });
    await bounded(started, 'the tool to start');

    await bounded(closing.close(), 'closing while a listen stream and a request are open');
    await bounded(aborted, 'the running tool to see its signal abort');
    const result = await bounded(events.next(), 'the listen result');
    expect(JSON.parse(result!.data)).toMatchObject({ id: 42, result: { resultType: 'complete', _meta: { 'io.modelcontextprotocol/subscriptionId': 42 } } });
    expect(await bounded(json(await running), 'the in-flight answer')).toMatchObject({
      status: 503,
      body: { id: 5, error: { code: -32010, message: expect.stringMatching(/shutting down/) } },
    });
  });
});
