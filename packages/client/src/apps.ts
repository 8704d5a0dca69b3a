/**
 * MCP Apps (io.modelcontextprotocol/ui, SEP-1865) for a host built on {@link McpClient}: which
 * tools the agent sees, the view a tool renders in, the sandbox policy of that view, and the
 * answers to the view's MCP requests — with the visibility rules the spec leaves to the host
 * (ext-apps' `AppBridge` forwards every call it is given).
 *
 * The browser half — the sandbox iframe, `ui/initialize`, tool input and result — stays with
 * ext-apps' `AppBridge` in the host page; its `oncalltool`, `onreadresource` and
 * `onloggingmessage` hand the view's requests to {@link AppHost.handle} over the host's own
 * channel (IPC, a WebSocket…). See docs/extensions.md.
 */
import { APP_MIME_TYPE, APP_RESOURCE_URI_META_KEY, ErrorCode, McpError, isRecord } from '@hermes-mcp/protocol';
import type { AppCsp, AppPermissions, AppResourceMeta, AppVisibility, CallToolResult, Resource, Tool } from '@hermes-mcp/protocol';
import type { CallOptions } from './client-api';
import type { McpClient } from './client';

/** A tool's MCP Apps settings, as {@link appOf} reads them. */
export interface AppToolInfo {
  /** The `ui://` view its results render in, if any. */
  resourceUri?: string;
  /** Who may call it; `['model', 'app']` when the server says nothing (the spec's default). */
  visibility: AppVisibility[];
}

/** An app's view, read and checked: the HTML to load and the sandbox settings it declared. */
export interface AppView {
  /** The `ui://` URI it was read from. */
  uri: string;
  /** The HTML document (a `blob` is decoded as UTF-8). */
  html: string;
  /** The origins it may reach: give {@link cspFor} them for its Content-Security-Policy. */
  csp?: AppCsp;
  /** The browser features it asks for: give {@link allowAttribute} them for the iframe's `allow`. */
  permissions?: AppPermissions;
  /** The dedicated sandbox origin it asks for, in the host's format. */
  domain?: string;
  /** Whether it wants the host's border and background. */
  prefersBorder?: boolean;
}

const BOTH: readonly AppVisibility[] = Object.freeze(['model', 'app']);

/** Entries a host may put in a CSP: one source expression each (the same rule ext-apps' host applies). */
const CSP_SOURCE = /^[^\s;,'"]+$/;

/**
 * The spec's policy for a view that declares no `csp`: its own inline code, data: images and media,
 * no network at all.
 */
const RESTRICTIVE_CSP = "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; connect-src 'none'";

/**
 * A tool's MCP Apps settings: `_meta.ui` first, then the deprecated flat `_meta['ui/resourceUri']`
 * (hosts must read both). Undefined for a tool that says nothing of apps. Throws when the view's
 * URI is not a `ui://` one (as ext-apps' `getToolUiResourceUri` does). A visibility that is not a
 * list of `model`/`app` counts as the default, both.
 */
export function appOf(tool: Tool): AppToolInfo | undefined {
  const meta = tool._meta;
  const ui = isRecord(meta?.ui) ? meta.ui : undefined;
  const uri = ui?.resourceUri ?? meta?.[APP_RESOURCE_URI_META_KEY];
  if (ui === undefined && uri === undefined) return undefined;
  if (uri !== undefined && (typeof uri !== 'string' || !uri.startsWith('ui://'))) {
    throw new McpError(ErrorCode.InternalError, `the tool "${tool.name}" names its view ${JSON.stringify(uri)}, which is not a ui:// URI`);
  }
  return { ...(uri !== undefined && { resourceUri: uri }), visibility: visibilityOf(ui?.visibility) };
}

function visibilityOf(value: unknown): AppVisibility[] {
  if (!Array.isArray(value) || value.length === 0) return [...BOTH];
  const known = value.filter((v): v is AppVisibility => v === 'model' || v === 'app');
  return known.length > 0 ? [...new Set(known)] : [...BOTH];
}

/** Whether `who` may call `tool` (the default visibility, both, when the tool says nothing). */
function callableBy(tool: Tool, who: AppVisibility): boolean {
  const ui = tool._meta?.ui;
  return visibilityOf(isRecord(ui) ? ui.visibility : undefined).includes(who);
}

/**
 * The tools the agent sees: those whose visibility includes `model`. A host MUST NOT give the
 * model the others (`visibility: ['app']`: only their view calls them).
 */
export function modelTools(tools: readonly Tool[]): Tool[] {
  return tools.filter((tool) => callableBy(tool, 'model'));
}

/**
 * Reads a view (`resources/read`) and checks it is one: exactly one content item, of type
 * `text/html;profile=mcp-app`, with `text` or `blob`. Its sandbox settings are the content item's
 * `_meta.ui`, else those of the listed resource (`listed`, from `resources/list`), as the spec says.
 * A server answer that breaks these rules is an `McpError` (-32603) saying which.
 */
export async function readAppView(client: McpClient, uri: string, listed?: Resource, options?: CallOptions): Promise<AppView> {
  const result = await client.readResource(uri, options);
  const contents = result.contents;
  if (!Array.isArray(contents) || contents.length !== 1) throw badView(uri, `it must read as exactly one content item, not ${Array.isArray(contents) ? contents.length : 'none'}`);
  const item = contents[0];
  if (item.mimeType !== APP_MIME_TYPE) throw badView(uri, `its mimeType is ${JSON.stringify(item.mimeType)}, not ${APP_MIME_TYPE}`);
  const html =
    'text' in item && typeof item.text === 'string' ? item.text : 'blob' in item && typeof item.blob === 'string' ? Buffer.from(item.blob, 'base64').toString('utf8') : undefined;
  if (html === undefined) throw badView(uri, 'it has neither text nor blob');
  const ui = isRecord(item._meta?.ui) ? item._meta.ui : isRecord(listed?._meta?.ui) ? listed._meta.ui : {};
  const { csp, permissions, domain, prefersBorder } = ui as AppResourceMeta;
  return {
    uri,
    html,
    ...(csp !== undefined && { csp }),
    ...(permissions !== undefined && { permissions }),
    ...(domain !== undefined && { domain }),
    ...(prefersBorder !== undefined && { prefersBorder }),
  };
}

function badView(uri: string, why: string): McpError {
  return new McpError(ErrorCode.InternalError, `the view ${uri} is not an MCP App view: ${why}`, { uri });
}

/**
 * The Content-Security-Policy to load a view under: the spec's template with the origins the view
 * declared, or its restrictive default when it declared none. Nothing undeclared is allowed, and an
 * entry that is not one source expression (a space, `;`, `,` or a quote: a smuggled directive or
 * keyword) is left out — the spec lets a host restrict further, never loosen.
 */
export function cspFor(csp?: AppCsp): string {
  if (!isRecord(csp)) return RESTRICTIVE_CSP;
  const sources = (list: unknown): string => (Array.isArray(list) ? list.filter((d): d is string => typeof d === 'string' && CSP_SOURCE.test(d)) : []).map((d) => ` ${d}`).join('');
  const resources = sources(csp.resourceDomains);
  const frames = sources(csp.frameDomains);
  const bases = sources(csp.baseUriDomains);
  return [
    "default-src 'none'",
    `script-src 'self' 'unsafe-inline'${resources}`,
    `style-src 'self' 'unsafe-inline'${resources}`,
    `connect-src 'self'${sources(csp.connectDomains)}`,
    `img-src 'self' data:${resources}`,
    `font-src 'self'${resources}`,
    `media-src 'self' data:${resources}`,
    `frame-src${frames || " 'none'"}`,
    "object-src 'none'",
    `base-uri${bases || " 'self'"}`,
  ].join('; ');
}

/** The iframe `allow` attribute for the permissions a view asked for (`camera; microphone; geolocation; clipboard-write`). */
export function allowAttribute(permissions?: AppPermissions): string {
  if (!isRecord(permissions)) return '';
  const features: Array<[keyof AppPermissions, string]> = [
    ['camera', 'camera'],
    ['microphone', 'microphone'],
    ['geolocation', 'geolocation'],
    ['clipboardWrite', 'clipboard-write'],
  ];
  return features
    .filter(([key]) => permissions[key] !== undefined)
    .map(([, feature]) => feature)
    .join('; ');
}

/** Options of an {@link AppHost}. */
export interface AppHostOptions {
  /** A view's `notifications/message` (its log lines), with the params it sent. */
  onLog?: (params: Record<string, unknown>) => void;
  /**
   * What the server listed (`resources/list`): a view whose content item carries no `_meta.ui`
   * takes its settings from its listed entry here, as the spec says (without it: none, and
   * {@link cspFor} gives the restrictive default).
   */
  resources?: readonly Resource[];
}

/**
 * The Node side of one server's apps in a host: opens a tool's view, and answers its views' MCP
 * requests through the client — `tools/call` only for this server's tools that a view may call
 * (visibility `app`), refused otherwise, so a view reaches neither a model-only tool nor another
 * server. One per client; `tools` is what that client listed.
 *
 * @example
 * const client = new McpClient(transport, { apps: true });
 * await client.connect();
 * const tools = await client.listAllTools();
 * const host = new AppHost(client, tools);
 * const { view, input, result } = host.open('show', {});  // render (await view).html, then pass input and (await result) to AppBridge
 * bridge.oncalltool = (params) => host.handle('tools/call', params);
 */
export class AppHost {
  private readonly tools: ReadonlyMap<string, Tool>;

  constructor(
    /** The client of the server whose views this host renders. */
    readonly client: McpClient,
    tools: readonly Tool[],
    private readonly options: AppHostOptions = {},
  ) {
    this.tools = new Map(tools.map((tool) => [tool.name, tool]));
  }

  /**
   * What the agent's call of a tool with a view starts: `tools/call` and the view's
   * `resources/read` at once (the view renders while the tool runs). `input` goes to the view
   * (`sendToolInput`) once it is initialized, then `result` (`sendToolResult`). Refused at once for
   * a tool this server did not list, one without a view, or one the model may not call.
   */
  open(
    name: string,
    args: Record<string, unknown> = {},
    options?: CallOptions,
  ): { view: Promise<AppView>; input: { arguments: Record<string, unknown> }; result: Promise<CallToolResult> } {
    const tool = this.tools.get(name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `"${name}" is not a tool of this server (it listed ${[...this.tools.keys()].join(', ') || 'none'})`);
    const uri = appOf(tool)?.resourceUri;
    if (uri === undefined) throw new McpError(ErrorCode.InvalidParams, `the tool "${name}" has no view (no _meta.ui.resourceUri)`);
    if (!callableBy(tool, 'model')) throw new McpError(ErrorCode.InvalidParams, `the tool "${name}" is only for its view (visibility ['app']): the agent does not call it`);
    const view = readAppView(
      this.client,
      uri,
      this.options.resources?.find((r) => r.uri === uri),
      options,
    );
    const result = this.client.callTool(name, args, options);
    // The caller awaits one, then the other: the second's failure must not go unhandled meanwhile.
    view.catch(() => undefined);
    result.catch(() => undefined);
    return { view, input: { arguments: args }, result };
  }

  /**
   * Answers one MCP request of a view (what `AppBridge` hands the host): `tools/call` for a tool of
   * this server whose visibility includes `app` (else -32602, unsent), `resources/read`,
   * `resources/list` and `resources/templates/list` through the client, `ping`, and
   * `notifications/message` (to `onLog`). Anything else is -32601: the `ui/*` methods are
   * `AppBridge`'s.
   */
  async handle(method: string, params: Record<string, unknown> = {}, options?: CallOptions): Promise<Record<string, unknown>> {
    switch (method) {
      case 'tools/call':
        return this.callFromView(params, options);
      case 'resources/read':
        if (typeof params.uri !== 'string') throw McpError.invalidParams('"uri" must be a string');
        return await this.client.readResource(params.uri, options);
      case 'resources/list':
        return await this.client.listResources(cursorOf(params), options);
      case 'resources/templates/list':
        return await this.client.listResourceTemplates(cursorOf(params), options);
      case 'notifications/message':
        this.options.onLog?.(params);
        return {};
      case 'ping':
        return {};
      default:
        throw McpError.methodNotFound(method);
    }
  }

  private async callFromView(params: Record<string, unknown>, options?: CallOptions): Promise<Record<string, unknown>> {
    const name = params.name;
    if (typeof name !== 'string') throw McpError.invalidParams('"name" must be a string');
    const args = params.arguments ?? {};
    if (!isRecord(args)) throw McpError.invalidParams('"arguments" must be an object');
    const tool = this.tools.get(name);
    if (!tool) throw McpError.invalidParams(`"${name}" is not a tool of this server: a view calls only its own server's tools`);
    if (!callableBy(tool, 'app')) throw McpError.invalidParams(`the tool "${name}" is not callable from an app: its visibility is ['model']`);
    return await this.client.callTool(name, args, options);
  }
}

function cursorOf(params: Record<string, unknown>): string | undefined {
  if (params.cursor !== undefined && typeof params.cursor !== 'string') throw McpError.invalidParams('"cursor" must be a string');
  return params.cursor;
}
