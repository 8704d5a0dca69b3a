/**
 * MCP Apps on the server (io.modelcontextprotocol/ui, SEP-1865): `@Tool({ ui })` links a tool to its
 * view and `@AppResource` serves the view, in every revision, through a real client over HTTP.
 * Every message the server wrote is validated against the official schema of the revision spoken.
 * The bootstrap refuses what the extension does not allow, with HERMES_APP_INVALID.
 */
import 'reflect-metadata';
import { IsInt } from 'class-validator';
import { APPS_EXTENSION, APP_MIME_TYPE, type ProtocolVersion } from '@hermes-mcp/protocol';
import { AppResource, McpContext, McpFactory, McpServer, Resource, Tool, createLogger } from '@hermes-mcp/core';
import { McpClient, StdioClientTransport, StreamableHttpClientTransport } from '@hermes-mcp/client';
import * as path from 'node:path';
import { loadModernSchema, loadSchemas, validateModernServerMessage, validateServerMessage } from '../../../test-support/mcp-schema';
import { RecordingFetch } from '../../../test-support/recording-fetch';
import { Serving, serveOn } from '../../../test-support/adapters';

const VIEW = 'ui://counter/view.html';
const BYTES_VIEW = 'ui://counter/bytes.html';
const HTML = '<!doctype html><html><body><p id="count">Count: 0</p></body></html>';
const UI = {
  csp: { connectDomains: ['https://api.example.com'], resourceDomains: ['https://cdn.example.com', 'https://*.example.org'] },
  permissions: { clipboardWrite: {} },
  domain: 'counter.example.com',
  prefersBorder: true,
};

class IncrementInput {
  @IsInt() by!: number;
}

@McpServer({ name: 'counter', version: '1.0.0' })
class CounterServer {
  private count = 0;

  @AppResource({ uri: VIEW, name: 'counter-view', description: 'The counter', ...UI })
  view() {
    return HTML;
  }

  @AppResource({ uri: BYTES_VIEW, name: 'bytes-view' })
  bytes() {
    return Buffer.from(HTML);
  }

  @Tool({ description: 'Shows the counter', ui: { resourceUri: VIEW } })
  show(ctx: McpContext) {
    return { count: this.count, apps: ctx.appsSupported };
  }

  @Tool({ description: 'Adds to the counter', ui: { resourceUri: VIEW, visibility: ['app'] } })
  increment(input: IncrementInput) {
    this.count += input.by;
    return { count: this.count };
  }

  @Tool({ description: 'Model only', ui: { visibility: ['model'] }, _meta: { 'example.com/owner': 'ops', ui: { 'example.com/hint': 'kept' } } })
  secret() {
    return 'secret';
  }

  @Tool({ description: 'Named by the flat key only', _meta: { 'ui/resourceUri': BYTES_VIEW } })
  flat() {
    return 'flat';
  }

  @Tool({ description: 'No app at all' })
  plain() {
    return 'plain';
  }
}

const silent = createLogger({ level: 'silent' });
const legacySchemas = loadSchemas();
const modernSchema = loadModernSchema();

/**
 * The one field a server of the extension writes that the 2025-06-18 and 2025-11-25 schemas do not
 * name: `capabilities.extensions` (SEP-1724's, named by the 2026-07-28 schema). Those schemas leave
 * the capabilities open, and hosts read the field there (the Apps spec's own example initializes
 * a 2024-11-05 session with it).
 */
function extensionsField(version: string): string {
  return `result 0 (initialize): result.capabilities.extensions is not a field of this object in ${version}`;
}

describe('MCP Apps on the wire, in every revision', () => {
  let serving: Serving;
  beforeAll(async () => {
    serving = await serveOn('fastify', CounterServer, undefined, { logger: silent });
  });
  afterAll(() => serving?.close());

  async function session(protocolVersion: ProtocolVersion, apps: boolean): Promise<{ client: McpClient; recorder: RecordingFetch }> {
    const recorder = new RecordingFetch();
    const client = new McpClient(new StreamableHttpClientTransport(new URL(serving.url), { fetch: recorder.fetch as typeof fetch }), {
      protocolVersion,
      apps,
      responseCache: false,
    });
    await client.connect();
    return { client, recorder };
  }

  /** Every message the server wrote in this session (closed first, so its streams have ended) that its revision's schema refuses. */
  async function violations(client: McpClient, recorder: RecordingFetch, protocolVersion: ProtocolVersion): Promise<string[]> {
    await client.close();
    await recorder.settled();
    if (protocolVersion === '2026-07-28') return recorder.messages('modern').flatMap((m) => validateModernServerMessage(modernSchema, m, recorder.requestMethodById('modern')));
    const schema = legacySchemas.revisions.get(protocolVersion)!;
    return recorder.messages('legacy').flatMap((m) => validateServerMessage(schema, m, recorder.requestMethodById('legacy')));
  }

  it.each(['2025-06-18', '2025-11-25', '2026-07-28'] as const)('%s: tools name their view, the views carry their settings, the extension is declared', async (version) => {
    const { client, recorder } = await session(version, true);
    try {
      expect(client.serverCapabilities.extensions).toMatchObject({ [APPS_EXTENSION]: {} });

      const tools = await client.listAllTools();
      const metaOf = (name: string) => tools.find((t) => t.name === name)?._meta;
      expect(metaOf('show')).toEqual({ ui: { resourceUri: VIEW }, 'ui/resourceUri': VIEW });
      expect(metaOf('increment')).toEqual({ ui: { resourceUri: VIEW, visibility: ['app'] }, 'ui/resourceUri': VIEW });
      expect(metaOf('secret')).toEqual({ 'example.com/owner': 'ops', ui: { 'example.com/hint': 'kept', visibility: ['model'] } });
      expect(metaOf('flat')).toEqual({ ui: { resourceUri: BYTES_VIEW }, 'ui/resourceUri': BYTES_VIEW });
      expect(metaOf('plain')).toBeUndefined();

      const resources = await client.listAllResources();
      expect(resources).toEqual([
        { uri: VIEW, name: 'counter-view', description: 'The counter', mimeType: APP_MIME_TYPE, _meta: { ui: UI } },
        { uri: BYTES_VIEW, name: 'bytes-view', mimeType: APP_MIME_TYPE },
      ]);
      const read = await client.readResource(VIEW);
      expect(read.contents).toEqual([{ uri: VIEW, mimeType: APP_MIME_TYPE, text: HTML, _meta: { ui: UI } }]);
      const bytes = await client.readResource(BYTES_VIEW);
      expect(bytes.contents).toEqual([{ uri: BYTES_VIEW, mimeType: APP_MIME_TYPE, blob: Buffer.from(HTML).toString('base64') }]);

      const shown = await client.callTool('show');
      expect(shown.structuredContent).toEqual({ count: 0, apps: true });
      expect(shown.content).toEqual([{ type: 'text', text: JSON.stringify({ count: 0, apps: true }) }]);

      const found = await violations(client, recorder, version);
      expect(found).toEqual(version === '2026-07-28' ? [] : [extensionsField(version)]);
    } finally {
      await client.close();
    }
  });

  it('2024-11-05 and 2025-03-26: no _meta and no extension (the tools work as text tools); the view keeps its MIME type', async () => {
    for (const version of ['2024-11-05', '2025-03-26'] as const) {
      const { client, recorder } = await session(version, true);
      try {
        expect(client.serverCapabilities).not.toHaveProperty('extensions');
        const tools = await client.listAllTools();
        expect(tools.filter((t) => '_meta' in t)).toEqual([]);
        expect(await client.listAllResources()).toEqual([
          { uri: VIEW, name: 'counter-view', description: 'The counter', mimeType: APP_MIME_TYPE },
          { uri: BYTES_VIEW, name: 'bytes-view', mimeType: APP_MIME_TYPE },
        ]);
        expect((await client.readResource(VIEW)).contents).toEqual([{ uri: VIEW, mimeType: APP_MIME_TYPE, text: HTML }]);
        // The client declared the extension, but no tool can name a view in this revision.
        expect((await client.callTool('show')).content).toEqual([{ type: 'text', text: JSON.stringify({ count: 0, apps: false }) }]);
        expect(await violations(client, recorder, version)).toEqual([]);
      } finally {
        await client.close();
      }
    }
  });

  it.each(['2025-11-25', '2026-07-28'] as const)('%s: ctx.appsSupported is false for a client that does not declare the extension', async (version) => {
    const { client } = await session(version, false);
    try {
      expect((await client.callTool('show')).structuredContent).toEqual({ count: 0, apps: false });
      // A host that declares the extension without the app MIME type renders no view either.
      const other = new McpClient(new StreamableHttpClientTransport(new URL(serving.url)), {
        protocolVersion: version,
        capabilities: { extensions: { [APPS_EXTENSION]: { mimeTypes: ['text/uri-list'] } } },
      });
      await other.connect();
      expect((await other.callTool('show')).structuredContent).toEqual({ count: 0, apps: false });
      await other.close();
    } finally {
      await client.close();
    }
  });
});

describe("agrees with ext-apps' own server helpers (registerAppTool, registerAppResource on the SDK v2 server)", () => {
  /** The app of CounterServer as ext-apps' helpers are given it (apps/ext-apps-server.mjs). */
  const reference = {
    html: HTML,
    views: [{ uri: VIEW, name: 'counter-view', description: 'The counter', meta: { ui: UI } }],
    tools: [
      { name: 'show', description: 'Shows the counter', meta: { ui: { resourceUri: VIEW } } },
      { name: 'increment', description: 'Adds to the counter', meta: { ui: { resourceUri: VIEW, visibility: ['app'] } } },
      { name: 'flat', description: 'Named by the flat key only', meta: { 'ui/resourceUri': BYTES_VIEW } },
    ],
  };

  // The SDK v2 server answers no server/discover on stdio: it is compared in the legacy revisions it serves there.
  it.each(['2025-06-18', '2025-11-25'] as const)('%s: the same tool _meta, listed view and read view', async (protocolVersion) => {
    const theirs = new McpClient(new StdioClientTransport({ command: process.execPath, args: [path.join(__dirname, 'apps/ext-apps-server.mjs'), JSON.stringify(reference)] }), {
      protocolVersion,
      apps: true,
    });
    const serving = await serveOn('fastify', CounterServer, undefined, { logger: silent });
    const ours = new McpClient(new StreamableHttpClientTransport(new URL(serving.url)), { protocolVersion, apps: true });
    try {
      await Promise.all([theirs.connect(), ours.connect()]);
      expect(theirs.serverInfo?.name).toBe('ext-apps-reference');
      const [theirTools, ourTools] = await Promise.all([theirs.listAllTools(), ours.listAllTools()]);
      for (const { name } of reference.tools) {
        expect({ name, _meta: ourTools.find((t) => t.name === name)?._meta }).toEqual({ name, _meta: theirTools.find((t) => t.name === name)?._meta });
      }
      const listed = async (client: McpClient) => (await client.listAllResources()).find((r) => r.uri === VIEW);
      expect(await listed(ours)).toEqual(await listed(theirs));
      expect((await ours.readResource(VIEW)).contents).toEqual((await theirs.readResource(VIEW)).contents);
    } finally {
      await Promise.all([theirs.close(), ours.close()]);
      await serving.close();
    }
  });
});

describe('what an app resource handler returns', () => {
  @McpServer({ name: 'returns', version: '1.0.0' })
  class ReturnsServer {
    @AppResource({ uri: 'ui://r/full.html', name: 'full', prefersBorder: false })
    full() {
      // A whole result: the missing mimeType and _meta are filled in; what it set itself is kept.
      return {
        contents: [
          { uri: 'ui://r/full.html', text: HTML },
          { uri: 'ui://r/full.html', text: HTML, mimeType: APP_MIME_TYPE, _meta: { ui: { prefersBorder: true }, 'example.com/x': 1 } },
        ],
      };
    }

    @Resource({ uri: 'ui://r/plain.html', name: 'plain', mimeType: APP_MIME_TYPE })
    plain() {
      return HTML;
    }

    @Tool({ description: 'A view served by a plain @Resource of the app type', ui: { resourceUri: 'ui://r/plain.html' } })
    view() {
      return 'ok';
    }
  }

  it('fills mimeType and _meta.ui into each content item where the handler set none', async () => {
    const app = McpFactory.create(ReturnsServer, { logger: silent });
    const serving = await serveOn('web', app);
    const client = new McpClient(new StreamableHttpClientTransport(new URL(serving.url)), { protocolVersion: '2025-11-25' });
    try {
      await client.connect();
      expect((await client.readResource('ui://r/full.html')).contents).toEqual([
        { uri: 'ui://r/full.html', mimeType: APP_MIME_TYPE, text: HTML, _meta: { ui: { prefersBorder: false } } },
        { uri: 'ui://r/full.html', mimeType: APP_MIME_TYPE, text: HTML, _meta: { ui: { prefersBorder: true }, 'example.com/x': 1 } },
      ]);
      // A @Resource of the app type is a view too (linked above), served as written.
      expect((await client.readResource('ui://r/plain.html')).contents).toEqual([{ uri: 'ui://r/plain.html', mimeType: APP_MIME_TYPE, text: HTML }]);
      expect(client.serverCapabilities.extensions).toEqual({ [APPS_EXTENSION]: {} });
    } finally {
      await client.close();
      await serving.close();
    }
  });

  it('links a tool to a view declared after it, in a component', () => {
    class Views {
      @AppResource({ uri: 'ui://later/view.html' }) view() {
        return HTML;
      }
    }
    @McpServer({ name: 'split', version: '1.0.0', components: [Views] })
    class Split {
      @Tool({ ui: { resourceUri: 'ui://later/view.html' } }) show() {
        return 'shown';
      }
    }
    const app = McpFactory.create(Split, { logger: silent });
    expect(app.registry!.tool('show')!.descriptor._meta).toEqual({ ui: { resourceUri: 'ui://later/view.html' }, 'ui/resourceUri': 'ui://later/view.html' });
  });

  it('declares no extension for a server without apps', async () => {
    @McpServer({ name: 'no-apps', version: '1.0.0' })
    class NoApps {
      @Tool({ description: 'plain' }) plain() {
        return 'plain';
      }
    }
    expect(McpFactory.create(NoApps, { logger: silent }).handler.capabilities).not.toHaveProperty('extensions');
  });
});

describe('the bootstrap refuses a malformed app (HERMES_APP_INVALID)', () => {
  function refusal(build: () => Function): RegExp | string {
    try {
      McpFactory.create(build() as new () => object, { logger: silent });
    } catch (error) {
      expect((error as { code?: string }).code).toBe('HERMES_APP_INVALID');
      return (error as Error).message;
    }
    throw new Error('the server was created');
  }

  it('a tool whose ui.resourceUri names no view of this server', () => {
    expect(
      refusal(() => {
        @McpServer({ name: 'x', version: '1' })
        class Missing {
          @Tool({ ui: { resourceUri: 'ui://nowhere/view.html' } }) show() {
            return 1;
          }
        }
        return Missing;
      }),
    ).toBe(
      'HERMES_APP_INVALID: Missing.show: `ui.resourceUri` names "ui://nowhere/view.html", which this server does not serve: declare it with @AppResource({ uri: \'ui://nowhere/view.html\', … }).',
    );
  });

  it('a tool whose view is a resource of another type', () => {
    expect(
      refusal(() => {
        @McpServer({ name: 'x', version: '1' })
        class WrongType {
          @Resource({ uri: 'ui://x/view.html', mimeType: 'text/html' }) page() {
            return HTML;
          }
          @Tool({ ui: { resourceUri: 'ui://x/view.html' } }) show() {
            return 1;
          }
        }
        return WrongType;
      }),
    ).toMatch(
      /WrongType\.show: `ui\.resourceUri` names "ui:\/\/x\/view\.html" \(WrongType\.page\), whose MIME type is "text\/html", not text\/html;profile=mcp-app: make it an @AppResource\./,
    );
  });

  it('a view URI that is not ui://, in ui or in the flat key, or two that disagree', () => {
    const tool = (meta: Record<string, unknown>) => () => {
      @McpServer({ name: 'x', version: '1' })
      class Tools {
        @AppResource({ uri: VIEW }) view() {
          return HTML;
        }
        @Tool(meta) show() {
          return 1;
        }
      }
      return Tools;
    };
    expect(refusal(tool({ ui: { resourceUri: 'https://example.com/view.html' } }))).toMatch(
      /`ui\.resourceUri` must be a ui:\/\/ URI naming an @AppResource, not "https:\/\/example\.com\/view\.html"/,
    );
    expect(refusal(tool({ _meta: { 'ui/resourceUri': 'view.html' } }))).toMatch(/not "view\.html"/);
    expect(refusal(tool({ ui: { resourceUri: VIEW }, _meta: { 'ui/resourceUri': BYTES_VIEW } }))).toMatch(/name different views; set `ui\.resourceUri` only/);
    expect(refusal(tool({ ui: 'ui://counter/view.html' }))).toMatch(/`ui` must be an object/);
  });

  it('a visibility that is not model, app or both, each once', () => {
    for (const visibility of [[], ['agent'], ['app', 'app'], 'app']) {
      expect(
        refusal(() => {
          @McpServer({ name: 'x', version: '1' })
          class Visible {
            @Tool({ ui: { visibility } as never }) show() {
              return 1;
            }
          }
          return Visible;
        }),
      ).toMatch(/`ui\.visibility` must be \['model'\], \['app'\] or \['model', 'app'\] \(each once\)/);
    }
  });

  it('csp or permissions on a tool (they belong on the view)', () => {
    expect(
      refusal(() => {
        @McpServer({ name: 'x', version: '1' })
        class OnTool {
          @Tool({ ui: { csp: { connectDomains: [] } } }) show() {
            return 1;
          }
        }
        return OnTool;
      }),
    ).toMatch(/OnTool\.show: `ui\.csp` belongs on the view, not the tool: set it on the @AppResource\./);
  });

  it('an @AppResource at a URI that is not a static ui:// one', () => {
    const view = (uri: string) => () => {
      @McpServer({ name: 'x', version: '1' })
      class Views {
        @AppResource({ uri }) view() {
          return HTML;
        }
      }
      return Views;
    };
    expect(refusal(view('https://example.com/view.html'))).toMatch(
      /Views\.view: @AppResource needs a ui:\/\/ URI \(e\.g\. 'ui:\/\/counter\/view\.html'\), not "https:\/\/example\.com\/view\.html"/,
    );
    expect(refusal(view('ui://counter/{id}'))).toMatch(/@AppResource serves one view at a static URI; "ui:\/\/counter\/\{id\}" is a template/);
  });

  it('CSP entries that are not one origin each, unknown CSP keys and permissions, malformed domain and prefersBorder', () => {
    const view = (settings: Record<string, unknown>) => () => {
      @McpServer({ name: 'x', version: '1' })
      class Settings {
        @AppResource({ uri: VIEW, ...settings }) view() {
          return HTML;
        }
      }
      return Settings;
    };
    expect(refusal(view({ csp: { connectDomains: ["https://a.example.com; script-src 'unsafe-eval'"] } }))).toMatch(
      /`csp\.connectDomains` holds "https:\/\/a\.example\.com; script-src 'unsafe-eval'": each entry must be one origin/,
    );
    expect(refusal(view({ csp: { resourceDomains: ['https://a.example.com https://b.example.com'] } }))).toMatch(/each entry must be one origin/);
    expect(refusal(view({ csp: { resourceDomains: [42] } }))).toMatch(/`csp\.resourceDomains` holds 42/);
    expect(refusal(view({ csp: { connectDomain: ['https://a.example.com'] } }))).toMatch(
      /`csp\.connectDomain` is not an MCP Apps CSP setting; use connectDomains, resourceDomains, frameDomains, baseUriDomains/,
    );
    expect(refusal(view({ csp: { frameDomains: 'https://a.example.com' } }))).toMatch(/`csp\.frameDomains` must be an array of origins/);
    expect(refusal(view({ permissions: { usb: {} } }))).toMatch(/`permissions\.usb` is not an MCP Apps permission; use camera, microphone, geolocation, clipboardWrite/);
    expect(refusal(view({ permissions: { camera: true } }))).toMatch(/`permissions\.camera` must be an object \(\{\} asks for it\)/);
    expect(refusal(view({ domain: '' }))).toMatch(/`domain` must be a non-empty string/);
    expect(refusal(view({ prefersBorder: 'yes' }))).toMatch(/`prefersBorder` must be true or false/);
  });

  it('a tool added at runtime whose view is not served; one whose view is, is added', () => {
    const app = McpFactory.create(CounterServer, { logger: silent });
    expect(() => app.addTool({ name: 'later', ui: { resourceUri: 'ui://counter/other.html' } }, () => 'later')).toThrow(
      expect.objectContaining({
        code: 'HERMES_APP_INVALID',
        message: expect.stringMatching(/runtime tool "later": `ui\.resourceUri` names "ui:\/\/counter\/other\.html", which this server does not serve/),
      }),
    );
    expect(app.registry!.tool('later')).toBeUndefined();
    app.addTool({ name: 'later', ui: { resourceUri: VIEW, visibility: ['app'] } }, () => 'later');
    expect(app.registry!.tool('later')!.descriptor._meta).toEqual({ ui: { resourceUri: VIEW, visibility: ['app'] }, 'ui/resourceUri': VIEW });
  });
});
