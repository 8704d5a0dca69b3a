/**
 * Starts the JWT-bearer grants' IdP and authorization server (idp-and-as.mjs, in a process of
 * their own) and asks them for what the tests need: ID tokens and workload tokens the IdP signs,
 * and the log of the token requests both have had.
 */
import { ChildProcess, spawn } from 'node:child_process';
import * as path from 'node:path';
import { createInterface } from 'node:readline';

/** One token request either server had. */
export interface TokenRequestLog {
  /** The origin of the server asked (the IdP's or the authorization server's). */
  at: string;
  grant_type: string | null;
  params: Record<string, string>;
  ok: boolean;
  error?: string;
  sub?: string;
  /** The `jti` of the JWT presented (the assertion, or the subject token). */
  jti?: string;
}

/** The running IdP and authorization server. */
export interface GrantServers {
  /** The IdP's issuer (its token endpoint: `${idp}/token`). */
  readonly idp: string;
  /** The authorization server's issuer. */
  readonly as: string;
  /** An ID token the IdP signed for `sub`, for its client `aud` (default the first IdP client), valid `ttl` seconds (negative: expired). */
  idToken(sub: string, options?: { aud?: string; ttl?: number }): Promise<string>;
  /** A workload token the IdP (the platform) signed for `sub`, for the authorization server unless `aud` says otherwise. */
  workloadToken(sub: string, options?: { aud?: string; ttl?: number }): Promise<string>;
  /** Every token request so far, in order. */
  log(): Promise<TokenRequestLog[]>;
  /** Makes them say otherwise: the authorization server's `grantTypes` (grant_types_supported), the IdP's `issuedTokenType`; `undefined` restores the default. */
  configure(settings: { grantTypes?: string[]; issuedTokenType?: string }): Promise<void>;
  stop(): Promise<void>;
}

/** Starts them (on free loopback ports); `stop()` ends them. */
export async function startGrantServers(config: {
  /** Clients of the IdP: id → secret (null for a public client). */
  idpClients: Record<string, string | null>;
  /** Clients of the authorization server: id → secret. */
  mcpClients: Record<string, string>;
  /** The workload subjects the authorization server lets in. */
  workloads?: string[];
  /** Subjects whose access tokens last three seconds (long enough for a request made with a fresh one to arrive on a busy machine). */
  shortLived?: string[];
  /** The client id the IdP names in its ID-JAGs (default "mcp-client"). */
  jagClientId?: string;
}): Promise<GrantServers> {
  const child: ChildProcess = spawn(process.execPath, [path.join(__dirname, 'idp-and-as.mjs'), JSON.stringify(config)], {
    cwd: path.join(__dirname, '../..'),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const { idp, as } = await new Promise<{ idp: string; as: string }>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => resolve(JSON.parse(line)));
    child.once('exit', (code) => reject(new Error(`the grant servers exited (${code}): ${stderr}`)));
  });
  const mint = async (kind: 'id_token' | 'workload', sub: string, options: { aud?: string; ttl?: number } = {}): Promise<string> => {
    const response = await fetch(`${idp}/mint`, { method: 'POST', body: JSON.stringify({ kind, sub, ...options }) });
    if (!response.ok) throw new Error(`minting failed: ${response.status} ${await response.text()} ${stderr}`);
    return ((await response.json()) as { jwt: string }).jwt;
  };
  return {
    idp,
    as,
    idToken: (sub, options) => mint('id_token', sub, options),
    workloadToken: (sub, options) => mint('workload', sub, options),
    async log() {
      return (await (await fetch(`${as}/log`)).json()) as TokenRequestLog[];
    },
    async configure(settings) {
      // JSON drops undefined: null says "back to the default" to the servers' `??`.
      const body = Object.fromEntries(Object.entries(settings).map(([key, value]) => [key, value ?? null]));
      await fetch(`${as}/configure`, { method: 'POST', body: JSON.stringify(body) });
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill();
      await exited;
    },
  };
}
