/**
 * The MCP Apps host helpers of @hermes-mcp/client: reading a tool's app settings in both formats,
 * the agent's tool list, the view read and checked, the CSP and `allow` attribute built from what
 * the view declared, and `AppHost` answering a view's requests with the visibility rules enforced —
 * against real Hermes servers in this process, in both eras; the `apps` option declaring the
 * extension.
 */
import 'reflect-metadata';
import { IsInt } from 'class-validator';
import { APPS_EXTENSION, APP_MIME_TYPE, ErrorCode, TASKS_EXTENSION, type Tool as ToolDescriptor } from '@hermes-mcp/protocol';
import { AppResource, McpApp, McpContext, McpFactory, McpServer, Resource, Tool, createLogger, isolatedContainer } from '@hermes-mcp/core';
import { AppHost, InMemoryTransport, McpClient, McpClientOptions, McpError, allowAttribute, appOf, cspFor, modelTools, readAppView } from '@hermes-mcp/client';

const VIEW = 'ui://counter/view.html';
const HTML = '<!doctype html><html><body><p id="count">Count: 0</p></body></html>';
const CSP = { connectDomains: ['https://api.example.com'], resourceDomains: ['https://cdn.example.com'] };

class IncrementInput {
  @IsInt() by!: number;
}

/** The calls each server ran, by tool name: what a refused call must never reach. */
const ran: string[] = [];

@McpServer({ name: 'counter', version: '1.0.0' })
class CounterServer {
  private count = 0;

  @AppResource({ uri: VIEW, name: 'counter-view', csp: CSP, permissions: { clipboardWrite: {} }, prefersBorder: true })
  view() {
    return HTML;
  }

  @Resource({ uri: 'ui://counter/listed.html', name: 'listed-view', mimeType: APP_MIME_TYPE, _meta: { ui: { csp: { connectDomains: ['https://listed.example.com'] } } } })
  listed() {
    return HTML;
  }

  @Tool({ description: 'Shown in a view whose settings are on its list entry only', ui: { resourceUri: 'ui://counter/listed.html' } })
  board() {
    return 'board';
  }

  @Resource({ uri: 'notes://{id}', name: 'note' })
  note() {
    return 'a note';
  }

  @Tool({ description: 'Shows the counter', ui: { resourceUri: VIEW } })
  show() {
    ran.push('show');
    return { count: this.count };
  }

  @Tool({ description: 'Adds to the counter', ui: { resourceUri: VIEW, visibility: ['app'] } })
  increment(input: IncrementInput) {
    ran.push('increment');
    this.count += input.by;
    return { count: this.count };
  }

  @Tool({ description: 'For the agent only', ui: { resourceUri: VIEW, visibility: ['model'] } })
  secret() {
    ran.push('secret');
    return 'secret';
  }

  @Tool({ description: 'No view' })
  plain() {
    ran.push('plain');
    return 'plain';
  }

  @Tool({ description: 'What the client declared' })
  declared(ctx: McpContext) {
    return { extensions: ctx.session.clientCapabilities.extensions ?? null, apps: ctx.appsSupported };
  }
}

@McpServer({ name: 'other', version: '1.0.0' })
class OtherServer {
  @Tool({ description: 'Another server’s app tool', ui: { visibility: ['app'] } })
  elsewhere() {
    ran.push('elsewhere');
    return 'elsewhere';
  }
}

const silent = createLogger({ level: 'silent' });
const clients: McpClient[] = [];
const apps: McpApp[] = [];

/** A client of a fresh app of `server` (a container of its own: a counter starts at 0). */
async function connect(server: Function, options: McpClientOptions): Promise<McpClient> {
  const app = McpFactory.create(server as new () => object, { logger: silent, container: isolatedContainer(`apps-${apps.length}`) });
  apps.push(app);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await app.connect(serverSide);
  const client = new McpClient(clientSide, options);
  await client.connect();
  clients.push(client);
  return client;
}

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  await Promise.all(apps.splice(0).map((a) => a.close()));
  ran.length = 0;
});

/** The McpError a promise rejects with. */
async function rejection(promise: Promise<unknown>): Promise<McpError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

const tool = (meta?: Record<string, unknown>): ToolDescriptor => ({ name: 't', inputSchema: { type: 'object' }, ...(meta && { _meta: meta }) });

describe('appOf and modelTools', () => {
  it('reads _meta.ui first, then the flat key; a tool without either is no app tool', () => {
    expect(appOf(tool({ ui: { resourceUri: VIEW, visibility: ['app'] }, 'ui/resourceUri': VIEW }))).toEqual({ resourceUri: VIEW, visibility: ['app'] });
    expect(appOf(tool({ 'ui/resourceUri': VIEW }))).toEqual({ resourceUri: VIEW, visibility: ['model', 'app'] });
    expect(appOf(tool({ ui: { resourceUri: VIEW }, 'ui/resourceUri': 'ui://older/view.html' }))).toEqual({ resourceUri: VIEW, visibility: ['model', 'app'] });
    expect(appOf(tool({ ui: { visibility: ['model'] } }))).toEqual({ visibility: ['model'] });
    expect(appOf(tool())).toBeUndefined();
    expect(appOf(tool({ 'example.com/x': 1 }))).toBeUndefined();
  });

  it('throws on a view URI that is not ui:// (as ext-apps does); a malformed visibility is the default', () => {
    expect(() => appOf(tool({ ui: { resourceUri: 'https://example.com/view.html' } }))).toThrow(
      'the tool "t" names its view "https://example.com/view.html", which is not a ui:// URI',
    );
    expect(() => appOf(tool({ 'ui/resourceUri': 42 }))).toThrow(McpError);
    expect(appOf(tool({ ui: { visibility: 'app' } }))).toEqual({ visibility: ['model', 'app'] });
    expect(appOf(tool({ ui: { visibility: ['agent'] } }))).toEqual({ visibility: ['model', 'app'] });
    expect(appOf(tool({ ui: { visibility: ['app', 'agent', 'app'] } }))).toEqual({ visibility: ['app'] });
  });

  it('the agent sees the tools whose visibility includes model (the default)', () => {
    const tools = [
      { ...tool({ ui: { visibility: ['app'] } }), name: 'app-only' },
      { ...tool({ ui: { visibility: ['model'] } }), name: 'model-only' },
      { ...tool({ ui: { visibility: ['model', 'app'] } }), name: 'both' },
      { ...tool(), name: 'plain' },
    ];
    expect(modelTools(tools).map((t) => t.name)).toEqual(['model-only', 'both', 'plain']);
  });
});

describe('cspFor and allowAttribute', () => {
  it('the restrictive default of the spec when the view declares no csp', () => {
    expect(cspFor()).toBe(
      "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; connect-src 'none'",
    );
  });

  it("the spec's template with the declared origins, and nothing else", () => {
    expect(
      cspFor({
        connectDomains: ['https://api.example.com', 'wss://live.example.com'],
        resourceDomains: ['https://cdn.example.com'],
        frameDomains: ['https://www.youtube.com'],
        baseUriDomains: ['https://cdn.example.com'],
      }),
    ).toBe(
      [
        "default-src 'none'",
        "script-src 'self' 'unsafe-inline' https://cdn.example.com",
        "style-src 'self' 'unsafe-inline' https://cdn.example.com",
        "connect-src 'self' https://api.example.com wss://live.example.com",
        "img-src 'self' data: https://cdn.example.com",
        "font-src 'self' https://cdn.example.com",
        "media-src 'self' data: https://cdn.example.com",
        'frame-src https://www.youtube.com',
        "object-src 'none'",
        'base-uri https://cdn.example.com',
      ].join('; '),
    );
    expect(cspFor({})).toBe(
      "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; font-src 'self'; media-src 'self' data:; frame-src 'none'; object-src 'none'; base-uri 'self'",
    );
  });

  it('leaves out an entry that would smuggle in a directive, a keyword or a second source', () => {
    const csp = cspFor({
      connectDomains: ["https://a.example.com; script-src 'unsafe-eval'", "'unsafe-inline'", 'https://b.example.com https://c.example.com', 'https://ok.example.com', 7 as never],
    });
    expect(csp).toContain("connect-src 'self' https://ok.example.com;");
    expect(csp).not.toMatch(/a\.example\.com|unsafe-eval|b\.example\.com/);
  });

  it('allow lists the permissions asked for', () => {
    expect(allowAttribute({ camera: {}, microphone: {}, geolocation: {}, clipboardWrite: {} })).toBe('camera; microphone; geolocation; clipboard-write');
    expect(allowAttribute({ clipboardWrite: {} })).toBe('clipboard-write');
    expect(allowAttribute()).toBe('');
  });
});

describe('the apps option', () => {
  it.each(['2025-11-25', '2026-07-28'] as const)(
    '%s: declares the extension with the app MIME type, beside the tasks extension and given capabilities',
    async (protocolVersion) => {
      const client = await connect(CounterServer, { protocolVersion, apps: true, tasks: true, capabilities: { extensions: { 'example.com/x': { on: true } } } });
      expect((await client.callTool('declared')).structuredContent).toEqual({
        extensions: { 'example.com/x': { on: true }, [TASKS_EXTENSION]: {}, [APPS_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } },
        apps: true,
      });
      const without = await connect(CounterServer, { protocolVersion });
      expect((await without.callTool('declared')).structuredContent).toEqual({ extensions: null, apps: false });
    },
  );
});

describe.each(['2025-11-25', '2026-07-28'] as const)('AppHost, %s', (protocolVersion) => {
  async function host(onLog?: (params: Record<string, unknown>) => void): Promise<{ client: McpClient; host: AppHost }> {
    const client = await connect(CounterServer, { protocolVersion, apps: true });
    return { client, host: new AppHost(client, await client.listAllTools(), { onLog }) };
  }

  it('opens a tool with its view: the call and the view read at once, with the view’s settings', async () => {
    const { host: apps } = await host();
    const { view, input, result } = apps.open('show', { from: 'agent' });
    expect(input).toEqual({ arguments: { from: 'agent' } });
    expect(await view).toEqual({ uri: VIEW, html: HTML, csp: CSP, permissions: { clipboardWrite: {} }, prefersBorder: true });
    expect((await result).structuredContent).toEqual({ count: 0 });
    expect(ran).toEqual(['show']);
  });

  it("takes a view's settings from its listed entry when its content item has none (given the resources)", async () => {
    const { client, host: bare } = await host();
    expect((await bare.open('board').view).csp).toBeUndefined();
    const listed = new AppHost(client, await client.listAllTools(), { resources: await client.listAllResources() });
    expect(await listed.open('board').view).toEqual({ uri: 'ui://counter/listed.html', html: HTML, csp: { connectDomains: ['https://listed.example.com'] } });
  });

  it('refuses to open a tool of another server, one without a view, and one only its view may call', async () => {
    const { host: apps } = await host();
    expect(() => apps.open('elsewhere')).toThrow('"elsewhere" is not a tool of this server (it listed board, show, increment, secret, plain, declared)');
    expect(() => apps.open('plain')).toThrow('the tool "plain" has no view (no _meta.ui.resourceUri)');
    expect(() => apps.open('increment')).toThrow('the tool "increment" is only for its view (visibility [\'app\']): the agent does not call it');
    expect(ran).toEqual([]);
  });

  it("answers the view's tools/call for this server's app tools only: a model-only tool and another server's are refused unsent", async () => {
    const { host: apps } = await host();
    const other = await connect(OtherServer, { protocolVersion, apps: true });
    const otherHost = new AppHost(other, await other.listAllTools());

    expect(await apps.handle('tools/call', { name: 'increment', arguments: { by: 2 } })).toMatchObject({ structuredContent: { count: 2 } });
    expect(await apps.handle('tools/call', { name: 'show' })).toMatchObject({ structuredContent: { count: 2 } });

    const modelOnly = await rejection(apps.handle('tools/call', { name: 'secret', arguments: {} }));
    expect(modelOnly.code).toBe(ErrorCode.InvalidParams);
    expect(modelOnly.message).toContain('the tool "secret" is not callable from an app: its visibility is [\'model\']');
    const crossServer = await rejection(apps.handle('tools/call', { name: 'elsewhere' }));
    expect(crossServer.message).toContain('"elsewhere" is not a tool of this server: a view calls only its own server\'s tools');
    // The other server's own view may call it.
    expect(await otherHost.handle('tools/call', { name: 'elsewhere' })).toMatchObject({ content: [{ type: 'text', text: 'elsewhere' }] });
    expect(ran).toEqual(['increment', 'show', 'elsewhere']);

    expect((await rejection(apps.handle('tools/call', { name: 7 }))).message).toContain('"name" must be a string');
    expect((await rejection(apps.handle('tools/call', { name: 'increment', arguments: [] }))).message).toContain('"arguments" must be an object');
  });

  it('passes reads and lists through, answers ping, hands logs to onLog, refuses anything else', async () => {
    const logs: Array<Record<string, unknown>> = [];
    const { host: apps } = await host((params) => logs.push(params));
    expect(await apps.handle('resources/read', { uri: VIEW })).toMatchObject({ contents: [{ uri: VIEW, mimeType: APP_MIME_TYPE, text: HTML }] });
    expect(await apps.handle('resources/list')).toMatchObject({ resources: [{ uri: VIEW, mimeType: APP_MIME_TYPE }, { uri: 'ui://counter/listed.html' }] });
    expect(await apps.handle('resources/templates/list', {})).toMatchObject({ resourceTemplates: [{ uriTemplate: 'notes://{id}' }] });
    expect(await apps.handle('ping')).toEqual({});
    expect(await apps.handle('notifications/message', { level: 'info', data: 'clicked' })).toEqual({});
    expect(logs).toEqual([{ level: 'info', data: 'clicked' }]);
    const unknown = await rejection(apps.handle('prompts/get', { name: 'x' }));
    expect(unknown.code).toBe(ErrorCode.MethodNotFound);
    expect((await rejection(apps.handle('resources/read', {}))).message).toContain('"uri" must be a string');
    expect((await rejection(apps.handle('resources/list', { cursor: 1 }))).message).toContain('"cursor" must be a string');
  });
});

describe('readAppView', () => {
  @McpServer({ name: 'views', version: '1.0.0' })
  class Views {
    @Resource({ uri: 'ui://v/plain.html', mimeType: 'text/html' }) plain() {
      return HTML;
    }
    @Resource({ uri: 'ui://v/two.html', mimeType: APP_MIME_TYPE }) two() {
      return {
        contents: [
          { uri: 'ui://v/two.html', mimeType: APP_MIME_TYPE, text: HTML },
          { uri: 'ui://v/two.html', mimeType: APP_MIME_TYPE, text: HTML },
        ],
      };
    }
    @AppResource({ uri: 'ui://v/blob.html', csp: { connectDomains: ['https://content.example.com'] } }) blob() {
      return Buffer.from(HTML);
    }
    @Resource({ uri: 'ui://v/bare.html', mimeType: APP_MIME_TYPE }) bare() {
      return HTML;
    }
  }

  it('decodes a blob; takes the settings of the content item, else those of the listed resource', async () => {
    const client = await connect(Views, { protocolVersion: '2025-11-25' });
    expect(await readAppView(client, 'ui://v/blob.html')).toEqual({ uri: 'ui://v/blob.html', html: HTML, csp: { connectDomains: ['https://content.example.com'] } });
    const listed = { uri: 'ui://v/bare.html', name: 'bare', _meta: { ui: { prefersBorder: false, domain: 'bare.example.com' } } };
    expect(await readAppView(client, 'ui://v/bare.html', listed)).toEqual({ uri: 'ui://v/bare.html', html: HTML, prefersBorder: false, domain: 'bare.example.com' });
  });

  it('refuses what is not a view: another MIME type, more than one item', async () => {
    const client = await connect(Views, { protocolVersion: '2025-11-25' });
    const plain = await rejection(readAppView(client, 'ui://v/plain.html'));
    expect(plain.code).toBe(ErrorCode.InternalError);
    expect(plain.message).toContain('the view ui://v/plain.html is not an MCP App view: its mimeType is "text/html", not text/html;profile=mcp-app');
    expect((await rejection(readAppView(client, 'ui://v/two.html'))).message).toContain('it must read as exactly one content item, not 2');
  });
});
