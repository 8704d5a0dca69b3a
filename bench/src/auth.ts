/**
 * The bench's authorization server: the tests' oidc-provider (test-support/oidc/oidc-server.mjs),
 * started once for the OAuth rows of the HTTP section, and one JWT access token from it (client
 * credentials, RS256, for the bench's resource) that every authenticated request carries.
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { createInterface } from 'node:readline';

/** The resource (audience) the bench's tokens are for; the server takes it as its canonical URI. */
export const BENCH_RESOURCE = 'http://127.0.0.1/bench-mcp';

const CLIENT = { client_id: 'bench', client_secret: 'bench-secret', grant_types: ['client_credentials'], redirect_uris: [], response_types: [], scope: 'notes:read' };

/** Starts the authorization server and gets a token: the issuer, the token, and how to stop it. */
export async function benchAuthorization(): Promise<{ issuer: string; token: string; stop(): void }> {
  const script = path.join(__dirname, '../../test-support/oidc/oidc-server.mjs');
  const child = spawn(process.execPath, [script, JSON.stringify({ clients: [CLIENT] })], { stdio: ['ignore', 'pipe', 'inherit'] });
  const issuer = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', (line) => resolve((JSON.parse(line) as { issuer: string }).issuer));
    child.once('exit', (code) => reject(new Error(`the authorization server exited (${code})`)));
  });
  const response = await fetch(`${issuer}/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from('bench:bench-secret').toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials', resource: BENCH_RESOURCE, scope: 'notes:read' }).toString(),
  });
  const { access_token: token } = (await response.json()) as { access_token?: string };
  if (!token) throw new Error(`the authorization server gave no token (HTTP ${response.status})`);
  return { issuer, token, stop: () => void child.kill() };
}
