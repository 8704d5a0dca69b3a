/**
 * The gateway's row: `@hermes-mcp/gateway` serving the stdio add server (hermes-stdio.server.ts,
 * spawned by it) over Streamable HTTP at /mcp — what `hermes-mcp proxy --http <port> -- node
 * hermes-stdio.server.js` runs. A 2025-era session gets an upstream process of its own, 2026-07-28
 * requests share one; the runner's CPU reading of this process includes its upstreams'.
 */
import { join } from 'node:path';
import { createLogger } from '@hermes-mcp/core';
import { serveHttp } from '@hermes-mcp/gateway';
import { announce, fail, tieToRunner } from './lifeline';

async function main(): Promise<void> {
  tieToRunner();
  const gateway = await serveHttp({
    upstreams: [{ name: 'add', spec: { command: process.execPath, args: [join(__dirname, 'hermes-stdio.server.js')] }, path: '/mcp' }],
    port: 0,
    logger: createLogger({ level: 'silent' }),
    // Every session of the run comes from the runner on 127.0.0.1: one client, as far as the per-client cap can tell.
    http: { maxSessionsPerClient: Number.MAX_SAFE_INTEGER },
  });
  announce({ address: '127.0.0.1', family: 'IPv4', port: Number(new URL(gateway.address).port) });
}

main().catch(fail);
