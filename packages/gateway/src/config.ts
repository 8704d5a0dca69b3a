/**
 * The hosts' `mcpServers` file (Claude Desktop, Cursor, VS Code's `servers` too): each entry a
 * command (`command`, `args`, `env`, `cwd`) or a URL (`url`, `headers`, and `type`/`transport`).
 */
import type { UpstreamSpec } from './upstream';

/** A config file the gateway cannot use; the message says which entry and why. */
export class GatewayConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GatewayConfigError';
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isStrings = (value: unknown): value is string[] => Array.isArray(value) && value.every((item) => typeof item === 'string');
const isStringMap = (value: unknown): value is Record<string, string> => isRecord(value) && Object.values(value).every((item) => typeof item === 'string');
/** Names that can be a path segment as they are. */
const NAME = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * The upstreams of a parsed `mcpServers` document (`{ "mcpServers": { name: entry } }`, or VS
 * Code's `{ "servers": … }`), by name, in file order. Throws a {@link GatewayConfigError} naming
 * the first entry it cannot use.
 */
export function upstreamsOf(document: unknown): Map<string, UpstreamSpec> {
  const servers = isRecord(document) ? (document.mcpServers ?? document.servers) : undefined;
  if (!isRecord(servers)) throw new GatewayConfigError('the config has no "mcpServers" object ({ "mcpServers": { "name": { "command": … } | { "url": … } } })');
  const found = new Map<string, UpstreamSpec>();
  for (const [name, entry] of Object.entries(servers)) {
    if (!NAME.test(name)) throw new GatewayConfigError(`the server name "${name}" is not 1-64 letters, digits, ".", "_" or "-" (it becomes a path: /${name}/mcp)`);
    if (!isRecord(entry)) throw new GatewayConfigError(`the entry "${name}" is not an object`);
    if (typeof entry.command === 'string') {
      if (entry.args !== undefined && !isStrings(entry.args)) throw new GatewayConfigError(`"${name}".args must be an array of strings`);
      if (entry.env !== undefined && !isStringMap(entry.env)) throw new GatewayConfigError(`"${name}".env must map names to strings`);
      if (entry.cwd !== undefined && typeof entry.cwd !== 'string') throw new GatewayConfigError(`"${name}".cwd must be a string`);
      found.set(name, {
        command: entry.command,
        ...(entry.args !== undefined && { args: entry.args }),
        ...(entry.env !== undefined && { env: entry.env }),
        ...(entry.cwd !== undefined && { cwd: entry.cwd }),
      });
    } else if (typeof entry.url === 'string') {
      try {
        new URL(entry.url);
      } catch {
        throw new GatewayConfigError(`"${name}".url is not a URL: ${entry.url}`);
      }
      if (entry.headers !== undefined && !isStringMap(entry.headers)) throw new GatewayConfigError(`"${name}".headers must map names to strings`);
      const kind = entry.transport ?? entry.type;
      const transport =
        kind === 'sse' ? 'sse' : kind === 'websocket' || kind === 'ws' ? 'websocket' : kind === undefined || kind === 'http' || kind === 'streamable-http' ? undefined : null;
      if (transport === null) throw new GatewayConfigError(`"${name}".type must be "http", "streamable-http", "sse" or "websocket"; got ${JSON.stringify(kind)}`);
      found.set(name, { url: entry.url, ...(entry.headers !== undefined && { headers: entry.headers }), ...(transport && { transport }) });
    } else {
      throw new GatewayConfigError(`the entry "${name}" has neither "command" nor "url"`);
    }
  }
  if (found.size === 0) throw new GatewayConfigError('"mcpServers" lists no server');
  return found;
}
