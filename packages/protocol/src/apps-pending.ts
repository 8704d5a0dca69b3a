/**
 * MCP Apps names (io.modelcontextprotocol/ui), as the protocol commit of issue 30 fixes them in
 * extensions.ts and types.ts. A stand-in until that commit is merged on this branch: it is then
 * removed, and every import stays as written (`@hermes-mcp/protocol`).
 */
import type { Meta } from './types';

/** The MCP Apps extension id (SEP-1865), declared under `capabilities.extensions`. */
export const APPS_EXTENSION = 'io.modelcontextprotocol/ui';
/** The MIME type of an MCP App's HTML view (`resources/read` contents and the listed resource). */
export const APP_MIME_TYPE = 'text/html;profile=mcp-app';
/** The flat, deprecated tool `_meta` key for the view's URI; written beside `_meta.ui.resourceUri` for older hosts. */
export const APP_RESOURCE_URI_META_KEY = 'ui/resourceUri';

/** A tool's `_meta.ui`: the view it renders in, and who may call it. */
export interface AppToolMeta {
  /** The `ui://` resource that renders this tool's results. */
  resourceUri?: string;
  /** Who may call it: `model` (the agent sees it), `app` (a view of this server may call it). Default both. */
  visibility?: Array<'model' | 'app'>;
  [key: string]: unknown;
}

/** A UI resource's `_meta.ui`: what its sandbox allows, and how it prefers to be shown. */
export interface AppResourceMeta {
  /** Origins the view may reach; anything not declared is blocked by the host's CSP. */
  csp?: { connectDomains?: string[]; resourceDomains?: string[]; frameDomains?: string[]; baseUriDomains?: string[] };
  /** Browser features the view asks for (the iframe's `allow` attribute). */
  permissions?: { camera?: Meta; microphone?: Meta; geolocation?: Meta; clipboardWrite?: Meta };
  /** A dedicated sandbox origin, in the host's own format. */
  domain?: string;
  /** Whether the view wants the host's border and background. */
  prefersBorder?: boolean;
}

/** What a host declares under `capabilities.extensions['io.modelcontextprotocol/ui']`. */
export interface AppsClientCapability {
  /** The view types the host renders; MCP Apps needs {@link APP_MIME_TYPE}. */
  mimeTypes: string[];
}
