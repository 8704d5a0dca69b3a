/**
 * `hermes-mcp proxy`: the command line of the gateway, which `hermes-mcp` (@hermes-mcp/client's
 * CLI) loads when this package is installed.
 *
 *   hermes-mcp proxy --http 3000 -- node dist/main.js          a stdio server over Streamable HTTP
 *   hermes-mcp proxy https://mcp.example.com/mcp --stdio       a remote server over stdio
 *   hermes-mcp proxy --config mcp.json --http 3000             each mcpServers entry at /{name}/mcp
 */
import { readFileSync } from 'node:fs';
import { jwtVerifier } from '@hermes-mcp/core';
import type { ResourceServerOptions } from '@hermes-mcp/core';
import { GatewayConfigError, upstreamsOf } from './config';
import { ServedUpstream, serveHttp, serveStdio } from './serve';
import type { UpstreamSpec, UrlUpstream } from './upstream';

/** The usage text of `hermes-mcp proxy`. */
export const PROXY_USAGE = `usage: hermes-mcp proxy [options] -- <command> [args…]     serve a stdio server over HTTP
       hermes-mcp proxy <url> --stdio [--header K:V]…      serve a remote server on stdio
       hermes-mcp proxy --config <mcp.json> --http <port>   serve each of a config's servers

Upstream (one of):
  -- <command> [args…]   a server this gateway spawns (its stdin and stdout speak MCP)
  <url>                  a remote server (Streamable HTTP; ws:// or wss:// over WebSocket)
  --config <file>        a JSON file in the hosts' shape: { "mcpServers": { "<name>": { "command", "args", "env" } | { "url", "headers" } } }
  --server <name>        with --config and --stdio: the one entry to serve

Downstream (one of):
  --http <port>          Streamable HTTP (both eras, sessions, resumability) and HTTP+SSE; 0 picks a free port
  --stdio                this process's stdin and stdout (nothing but MCP on stdout; logs on stderr)

Options:
  --host <address>       where --http listens (default 127.0.0.1)
  --path <path>          the endpoint's path (default /mcp; with --config, /<name>/mcp each)
  --allowed-host <host>  a Host header name to accept besides loopback ones (repeatable; for --host 0.0.0.0)
  --session-upstream <r> the revision a 2025-era session's upstream connection speaks: session (default;
                         the upstream shapes its answers for it) or newest (2026-07-28 when the upstream
                         speaks it: for servers whose older revisions cannot ask questions)
  --max-sessions <n>     most 2025-era sessions at once, each with its own upstream (default 100 for
                         a command: a process each; 10000 for a URL); at the limit the idlest ends
  --header <K:V>         a header sent to a <url> upstream: the gateway's own credential (repeatable)
  --transport <kind>     how to reach <url>: streamable-http (default), sse, websocket
  --issuer <url>         serve --http as an OAuth resource server: tokens from this authorization server
  --jwks <url>           its JWKS (default: read from its metadata)
  --resource <uri>       this endpoint's canonical URI, the tokens' audience (default http://<host>:<port><path>)
  --audience <aud>       the audience tokens must name (default the resource)
  --scope <scope>        a scope every request needs (repeatable)

The caller's token is checked here and never sent upstream. A 2025-era session gets an upstream
connection of its own (for a command, its own process); stateless 2026-07-28 requests share one.`;

/** Most 2025-era sessions at once in front of a command: each has a process of its own. */
const DEFAULT_MAX_SESSIONS = 100;

/** A command line `hermes-mcp proxy` cannot use. */
class UsageError extends Error {}

const VALUE_FLAGS = new Set([
  '--http',
  '--max-sessions',
  '--session-upstream',
  '--host',
  '--path',
  '--header',
  '--transport',
  '--config',
  '--server',
  '--issuer',
  '--jwks',
  '--resource',
  '--audience',
  '--scope',
  '--allowed-host',
]);
const REPEATED = new Set(['--header', '--scope', '--allowed-host']);

interface ProxyArgs {
  operand?: string;
  command?: string[];
  flags: Map<string, string[]>;
  stdio: boolean;
}

function parse(argv: string[]): ProxyArgs {
  const dash = argv.indexOf('--');
  const own = dash === -1 ? argv : argv.slice(0, dash);
  const command = dash === -1 ? undefined : argv.slice(dash + 1);
  if (command !== undefined && command.length === 0) throw new UsageError('nothing after --: give the command that starts the server');
  const flags = new Map<string, string[]>();
  const operands: string[] = [];
  let stdio = false;
  for (let i = 0; i < own.length; i++) {
    const arg = own[i];
    if (arg === '--stdio') stdio = true;
    else if (VALUE_FLAGS.has(arg)) {
      const value = own[++i];
      if (value === undefined) throw new UsageError(`${arg} needs a value`);
      if (flags.has(arg) && !REPEATED.has(arg)) throw new UsageError(`${arg} is given twice`);
      flags.set(arg, [...(flags.get(arg) ?? []), value]);
    } else if (arg.startsWith('--')) throw new UsageError(`unknown option ${arg}`);
    else operands.push(arg);
  }
  if (operands.length > 1) throw new UsageError(`one upstream URL at most, not "${operands.join(' ')}" (a command goes after --)`);
  return { operand: operands[0], command, flags, stdio };
}

const one = (args: ProxyArgs, flag: string): string | undefined => args.flags.get(flag)?.[0];

/** The upstreams the command line names, by name. */
function upstreams(args: ProxyArgs): Map<string, UpstreamSpec> {
  const sources = [args.command !== undefined, args.operand !== undefined, args.flags.has('--config')].filter(Boolean).length;
  if (sources !== 1) throw new UsageError('name one upstream: a command after --, a URL, or --config <file>');
  if (args.command) {
    if (args.flags.has('--header') || args.flags.has('--transport')) throw new UsageError('--header and --transport are for a URL upstream');
    const [command, ...rest] = args.command;
    return new Map([['upstream', { command, args: rest }]]);
  }
  if (args.operand !== undefined) {
    let url: URL;
    try {
      url = new URL(args.operand);
    } catch {
      throw new UsageError(`"${args.operand}" is not a URL (a command goes after --)`);
    }
    const headers: Record<string, string> = {};
    for (const header of args.flags.get('--header') ?? []) {
      const colon = header.indexOf(':');
      if (colon <= 0) throw new UsageError(`--header wants Name:value, got "${header}"`);
      headers[header.slice(0, colon).trim()] = header.slice(colon + 1).trim();
    }
    const transport = one(args, '--transport');
    if (transport !== undefined && !['streamable-http', 'sse', 'websocket'].includes(transport))
      throw new UsageError(`--transport is streamable-http, sse or websocket; got ${transport}`);
    const spec: UrlUpstream = { url: url.href, ...(Object.keys(headers).length > 0 && { headers }), ...(transport && { transport: transport as UrlUpstream['transport'] }) };
    return new Map([['upstream', spec]]);
  }
  const file = one(args, '--config')!;
  let document: unknown;
  try {
    document = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const found = upstreamsOf(document);
  const picked = one(args, '--server');
  if (picked === undefined) return found;
  const spec = found.get(picked);
  if (!spec) throw new UsageError(`${file} has no server "${picked}" (it has: ${[...found.keys()].join(', ')})`);
  return new Map([[picked, spec]]);
}

/** The OAuth resource server the flags ask for, if any. */
function authOf(args: ProxyArgs, host: string, port: number, path: string): ResourceServerOptions | undefined {
  const issuer = one(args, '--issuer');
  const related = ['--jwks', '--resource', '--audience', '--scope'].filter((flag) => args.flags.has(flag));
  if (issuer === undefined) {
    if (related.length > 0) throw new UsageError(`${related.join(', ')} need --issuer (the authorization server)`);
    return undefined;
  }
  const resource = one(args, '--resource') ?? (port === 0 ? undefined : `http://${host}:${port}${path}`);
  if (resource === undefined) throw new UsageError('--issuer with --http 0 needs --resource (the URI clients reach this endpoint at)');
  const jwks = one(args, '--jwks');
  const scopes = args.flags.get('--scope');
  return {
    resource,
    authorizationServers: [issuer],
    verifier: jwtVerifier({ issuer, audience: one(args, '--audience') ?? resource, ...(jwks && { jwksUri: jwks }) }),
    ...(scopes && { requiredScopes: scopes, scopesSupported: scopes }),
  };
}

function portOf(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new UsageError(`--http wants a port (0-65535), got ${value}`);
  return port;
}

/**
 * Runs `hermes-mcp proxy` with `argv` (the words after `proxy`); resolves with the exit code once
 * it is done: 2 for a command line it cannot use, 1 when the upstream cannot be started. Serving
 * over HTTP, it runs until SIGINT or SIGTERM; on stdio, until stdin closes.
 */
export async function proxyMain(argv: string[]): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) return (process.stderr.write(`${PROXY_USAGE}\n`), 0);
  let args: ProxyArgs;
  let found: Map<string, UpstreamSpec>;
  let sessionRevision: 'session' | 'newest' | undefined;
  try {
    args = parse(argv);
    found = upstreams(args);
    if (args.stdio === args.flags.has('--http')) throw new UsageError('serve with one of --http <port> or --stdio');
    if (args.stdio && found.size > 1) throw new UsageError('--stdio serves one server: pick it with --server <name>');
    const revision = one(args, '--session-upstream');
    if (revision !== undefined && revision !== 'session' && revision !== 'newest') throw new UsageError(`--session-upstream is session or newest, got ${revision}`);
    sessionRevision = revision;
  } catch (error) {
    if (!(error instanceof UsageError) && !(error instanceof GatewayConfigError)) throw error;
    process.stderr.write(`hermes-mcp proxy: ${error.message}\n\n${PROXY_USAGE}\n`);
    return 2;
  }
  if (args.stdio) {
    const [name, spec] = [...found][0];
    try {
      await serveStdio({ name, spec, ...(sessionRevision && { upstream: { sessionRevision } }) });
    } catch (error) {
      process.stderr.write(`hermes-mcp proxy: ${error instanceof Error ? error.message : String(error)}\n`);
      return 1;
    }
    // Serving until stdin closes: core ends the process then.
    return new Promise<number>(() => undefined);
  }
  let served: ServedUpstream[];
  let port: number;
  const host = one(args, '--host') ?? '127.0.0.1';
  let auth: ResourceServerOptions | undefined;
  try {
    port = portOf(one(args, '--http')!);
    const path = one(args, '--path');
    if (path !== undefined && !path.startsWith('/')) throw new UsageError(`--path must start with /, got ${path}`);
    served = [...found].map(([name, spec]) => ({ name, spec, path: found.size === 1 ? (path ?? '/mcp') : `${path ?? ''}/${name}/mcp` }));
    auth = authOf(args, host, port, served[0].path);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(`hermes-mcp proxy: ${error.message}\n\n${PROXY_USAGE}\n`);
    return 2;
  }
  const allowedHosts = args.flags.get('--allowed-host');
  const maxSessionsFlag = one(args, '--max-sessions');
  const maxSessions = maxSessionsFlag === undefined ? ([...found.values()].some((spec) => 'command' in spec) ? DEFAULT_MAX_SESSIONS : undefined) : Number(maxSessionsFlag);
  if (maxSessions !== undefined && !(Number.isInteger(maxSessions) && maxSessions > 0)) {
    process.stderr.write(`hermes-mcp proxy: --max-sessions wants a whole number above 0, got ${maxSessionsFlag}\n\n${PROXY_USAGE}\n`);
    return 2;
  }
  let gateway: Awaited<ReturnType<typeof serveHttp>>;
  try {
    gateway = await serveHttp({
      upstreams: served,
      ...(sessionRevision && { upstream: { sessionRevision } }),
      port,
      host,
      ...(auth && { auth }),
      http: {
        ...(allowedHosts && { allowedHosts: ['localhost', '127.0.0.1', '[::1]', ...allowedHosts] }),
        ...(maxSessions !== undefined && { maxSessions }),
      },
    });
  } catch (error) {
    process.stderr.write(`hermes-mcp proxy: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
  for (const [name, url] of Object.entries(gateway.urls)) {
    const spec = found.get(name)!;
    const what = 'command' in spec ? [spec.command, ...(spec.args ?? [])].join(' ') : spec.url;
    process.stderr.write(`hermes-mcp proxy: ${what} served at ${url}\n`);
  }
  return new Promise<number>((resolve) => {
    const stop = () => void gateway.close().finally(() => resolve(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
}
