/**
 * The bench's authorization server: the tests' oidc-provider (test-support/oidc/oidc-server.mjs),
 * started once for the OAuth rows of the HTTP section, and two JWT access tokens from it (client
 * credentials, RS256, for the bench's resource): a bearer token, and one bound to a DPoP key.
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { DpopProofs } from './dpop';

/** The resource (audience) the bench's tokens are for; the server takes it as its canonical URI. */
export const BENCH_RESOURCE = 'http://127.0.0.1/bench-mcp';

const CLIENT = { client_id: 'bench', client_secret: 'bench-secret', grant_types: ['client_credentials'], redirect_uris: [], response_types: [], scope: 'notes:read' };

/** What the OAuth rows use: the issuer, a bearer token, a DPoP-bound token and its key's proofs. */
export interface BenchAuthorization {
  issuer: string;
  token: string;
  dpopToken: string;
  proofs: DpopProofs;
  stop(): void;
}

/** Starts the authorization server and gets the tokens. */
export async function benchAuthorization(): Promise<BenchAuthorization> {
  const script = path.join(__dirname, '../../test-support/oidc/oidc-server.mjs');
  const child = spawn(process.execPath, [script, JSON.stringify({ clients: [CLIENT] })], { stdio: ['ignore', 'pipe', 'inherit'] });
  const issuer = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', (line) => resolve((JSON.parse(line) as { issuer: string }).issuer));
    child.once('exit', (code) => reject(new Error(`the authorization server exited (${code})`)));
  });
  const tokenFor = async (dpop?: string): Promise<string> => {
    const response = await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from('bench:bench-secret').toString('base64')}`,
        ...(dpop !== undefined && { dpop }),
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', resource: BENCH_RESOURCE, scope: 'notes:read' }).toString(),
    });
    const { access_token: token } = (await response.json()) as { access_token?: string };
    if (!token) throw new Error(`the authorization server gave no token (HTTP ${response.status})`);
    return token;
  };
  const proofs = new DpopProofs();
  const [token, dpopToken] = await Promise.all([tokenFor(), tokenFor(proofs.proof(`${issuer}/token`))]);
  proofs.bind(dpopToken);
  return { issuer, token, dpopToken, proofs, stop: () => void child.kill() };
}
