/**
 * MCP Apps (io.modelcontextprotocol/ui, SEP-1865) on the server: what `@Tool({ ui })` and
 * `@AppResource` publish, checked once at bootstrap. There are no new methods: a tool names its
 * view in `_meta.ui`, the view is a `ui://` resource of type `text/html;profile=mcp-app`, and the
 * host renders it. Visibility is the host's to enforce; the server publishes it and checks it is
 * well formed.
 */
import { APP_MIME_TYPE, APP_RESOURCE_URI_META_KEY, AppCsp, AppPermissions, AppResourceMeta, AppToolMeta, Meta, isRecord } from '@hermes-mcp/protocol';
import { HermesError } from '../errors';
import type { AppResourceOptions, ResourceOptions, ToolOptions } from '../metadata/options';
import type { Registry } from './registry';

const VISIBILITY = new Set(['model', 'app']);
const CSP_KEYS = new Set(['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains']);
const PERMISSIONS = new Set(['camera', 'microphone', 'geolocation', 'clipboardWrite']);
/**
 * One CSP source expression (`https://cdn.example.com`, `https://*.example.com`, `wss:`): hosts
 * splice these into a policy, so a space, `;`, `,` or quote would smuggle in a directive or keyword.
 */
const CSP_SOURCE = /^[^\s;,'"]+$/;

function invalid(owner: string, message: string): HermesError {
  return new HermesError('HERMES_APP_INVALID', `${owner}: ${message}`);
}

/**
 * A tool's `_meta` with its `ui` option folded in: `_meta.ui` (a hand-written one merged under the
 * option) and, when it names a view, the deprecated flat `_meta['ui/resourceUri']` that older hosts
 * read (as ext-apps' `registerAppTool` writes both). Refuses a malformed `ui`. @internal
 */
export function toolMetaOf(options: ToolOptions, owner: string): Meta | undefined {
  const meta = options._meta;
  const written = meta?.ui;
  const flat = meta?.[APP_RESOURCE_URI_META_KEY];
  if (options.ui === undefined && written === undefined && flat === undefined) return meta;
  if (options.ui !== undefined && !isRecord(options.ui)) throw invalid(owner, '`ui` must be an object: { resourceUri?, visibility? }.');
  if (written !== undefined && !isRecord(written)) throw invalid(owner, '`_meta.ui` must be an object.');
  const ui: AppToolMeta = { ...written, ...options.ui };
  if (flat !== undefined && ui.resourceUri !== undefined && flat !== ui.resourceUri) {
    throw invalid(
      owner,
      `\`_meta['${APP_RESOURCE_URI_META_KEY}']\` (${JSON.stringify(flat)}) and \`ui.resourceUri\` (${JSON.stringify(ui.resourceUri)}) name different views; set \`ui.resourceUri\` only.`,
    );
  }
  ui.resourceUri ??= flat as string | undefined;
  checkToolUi(ui, owner);
  const out: Meta = { ...meta, ui };
  if (ui.resourceUri !== undefined) out[APP_RESOURCE_URI_META_KEY] = ui.resourceUri;
  return out;
}

function checkToolUi(ui: AppToolMeta, owner: string): void {
  for (const key of ['csp', 'permissions', 'domain', 'prefersBorder']) {
    if (key in ui) throw invalid(owner, `\`ui.${key}\` belongs on the view, not the tool: set it on the @AppResource.`);
  }
  if (ui.resourceUri !== undefined && (typeof ui.resourceUri !== 'string' || !ui.resourceUri.startsWith('ui://'))) {
    throw invalid(owner, `\`ui.resourceUri\` must be a ui:// URI naming an @AppResource, not ${JSON.stringify(ui.resourceUri)}.`);
  }
  const visibility = ui.visibility;
  if (visibility === undefined) return;
  if (!Array.isArray(visibility) || visibility.length === 0 || visibility.some((v) => !VISIBILITY.has(v)) || new Set(visibility).size !== visibility.length) {
    throw invalid(owner, `\`ui.visibility\` must be ['model'], ['app'] or ['model', 'app'] (each once), not ${JSON.stringify(visibility)}.`);
  }
}

/**
 * An `@AppResource` as the `@Resource` it is — the app MIME type, its settings as `_meta.ui` on the
 * listed resource — and the `_meta` every content item it reads carries (the spec's hosts read the
 * content item's first). Refuses a URI that is not a static `ui://` one and malformed settings. @internal
 */
export function appResourceOf(options: AppResourceOptions & { name: string }, owner: string): { options: ResourceOptions & { name: string }; contentMeta: Meta } {
  const { csp, permissions, domain, prefersBorder, ...resource } = options;
  if (typeof options.uri !== 'string' || !options.uri.startsWith('ui://') || !URL.canParse(options.uri)) {
    throw invalid(owner, `@AppResource needs a ui:// URI (e.g. 'ui://counter/view.html'), not ${JSON.stringify(options.uri)}.`);
  }
  if (options.uri.includes('{')) throw invalid(owner, `@AppResource serves one view at a static URI; "${options.uri}" is a template.`);
  const ui: AppResourceMeta = {};
  if (csp !== undefined) ui.csp = checkCsp(csp, owner);
  if (permissions !== undefined) ui.permissions = checkPermissions(permissions, owner);
  if (domain !== undefined) {
    if (typeof domain !== 'string' || !domain) throw invalid(owner, '`domain` must be a non-empty string (in the format your host documents).');
    ui.domain = domain;
  }
  if (prefersBorder !== undefined) {
    if (typeof prefersBorder !== 'boolean') throw invalid(owner, '`prefersBorder` must be true or false.');
    ui.prefersBorder = prefersBorder;
  }
  if (Object.keys(ui).length === 0) return { options: { ...resource, mimeType: APP_MIME_TYPE }, contentMeta: {} };
  return { options: { ...resource, mimeType: APP_MIME_TYPE, _meta: { ...resource._meta, ui } }, contentMeta: { ui } };
}

function checkCsp(csp: unknown, owner: string): AppCsp {
  if (!isRecord(csp)) throw invalid(owner, '`csp` must be an object: { connectDomains?, resourceDomains?, frameDomains?, baseUriDomains? }.');
  for (const [key, domains] of Object.entries(csp)) {
    if (!CSP_KEYS.has(key)) throw invalid(owner, `\`csp.${key}\` is not an MCP Apps CSP setting; use ${[...CSP_KEYS].join(', ')}.`);
    if (!Array.isArray(domains)) throw invalid(owner, `\`csp.${key}\` must be an array of origins.`);
    for (const domain of domains) {
      if (typeof domain !== 'string' || !CSP_SOURCE.test(domain)) {
        throw invalid(owner, `\`csp.${key}\` holds ${JSON.stringify(domain)}: each entry must be one origin (e.g. 'https://api.example.com'), without spaces, ';', ',' or quotes.`);
      }
    }
  }
  return csp;
}

function checkPermissions(permissions: unknown, owner: string): AppPermissions {
  if (!isRecord(permissions)) throw invalid(owner, '`permissions` must be an object: { camera?: {}, microphone?: {}, geolocation?: {}, clipboardWrite?: {} }.');
  for (const [key, value] of Object.entries(permissions)) {
    if (!PERMISSIONS.has(key)) throw invalid(owner, `\`permissions.${key}\` is not an MCP Apps permission; use ${[...PERMISSIONS].join(', ')}.`);
    if (!isRecord(value)) throw invalid(owner, `\`permissions.${key}\` must be an object ({} asks for it).`);
  }
  return permissions;
}

/**
 * Refuses a tool whose `ui.resourceUri` names no view of this server: a static resource of type
 * `text/html;profile=mcp-app` (an `@AppResource`, or a `@Resource` with that MIME type). Run once
 * every handler is registered (a tool may come before its view), and for a tool added at runtime. @internal
 */
export function checkAppLink(registry: Registry, meta: Meta | undefined, owner: string): void {
  const ui = meta?.ui;
  const uri = isRecord(ui) ? (ui as AppToolMeta).resourceUri : undefined;
  if (uri === undefined) return;
  const def = registry.resolveResource(uri)?.def;
  if (!def || !('uri' in def)) throw invalid(owner, `\`ui.resourceUri\` names "${uri}", which this server does not serve: declare it with @AppResource({ uri: '${uri}', … }).`);
  if (def.descriptor.mimeType !== APP_MIME_TYPE) {
    throw invalid(
      owner,
      `\`ui.resourceUri\` names "${uri}" (${def.owner}), whose MIME type is ${JSON.stringify(def.descriptor.mimeType)}, not ${APP_MIME_TYPE}: make it an @AppResource.`,
    );
  }
}

/** Whether the server offers MCP Apps (a view, or a tool linked to one): it then declares the extension. @internal */
export function servesApps(registry: Registry): boolean {
  return registry.allTools().some((tool) => isRecord(tool.descriptor._meta?.ui)) || registry.allResources().some((r) => r.descriptor.mimeType === APP_MIME_TYPE);
}
