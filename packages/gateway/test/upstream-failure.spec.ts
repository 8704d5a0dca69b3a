/**
 * An upstream killed mid-call, behind `hermes-mcp proxy --http`: the call in flight on it fails with
 * GATEWAY_UPSTREAM_CLOSED (-32603, `data.code`), a call in flight in another session (its own
 * upstream process) completes, and the next request of that session starts the upstream again —
 * the gateway is never restarted. Both eras: a 2025-11-25 session (SDK v1) and a 2026-07-28
 * stateless client (SDK v2) on the shared upstream.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttpTransport } from '@modelcontextprotocol/client';
import { EVERYTHING, childrenOf, everythingProxy, rejectionOf, startProxy, textOf } from './support';

const served = everythingProxy();

/** A connected SDK v1 client whose session's upstream has started (one call made); its upstream's pid. */
async function session(): Promise<{ client: Client; pid: number }> {
  const before = new Set(childrenOf(served.proxy.child.pid!));
  const client = new Client({ name: 'sdk-v1', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(served.url));
  expect(textOf(await client.callTool({ name: 'echo', arguments: { message: 'up' } }))).toBe('up');
  const started = childrenOf(served.proxy.child.pid!).filter((pid) => !before.has(pid));
  expect(started).toHaveLength(1);
  return { client, pid: started[0] };
}

it('fails the call in flight on a killed session upstream with its code; another session completes; the next request starts it again', async () => {
  const a = await session();
  const b = await session();
  try {
    let progressed!: () => void;
    const inFlight = new Promise<void>((resolve) => (progressed = resolve));
    const callA = a.client.callTool({ name: 'slow', arguments: { steps: 50, delayMs: 100, label: 'a' } }, undefined, { onprogress: () => progressed() });
    const callB = b.client.callTool({ name: 'slow', arguments: { steps: 4, delayMs: 100, label: 'b' } }, undefined, { onprogress: () => undefined });
    await inFlight;
    process.kill(a.pid, 'SIGKILL');

    const error = await rejectionOf(callA);
    expect(error.code).toBe(-32603);
    expect(error.message).toContain('GATEWAY_UPSTREAM_CLOSED');
    expect(error.data).toEqual({ code: 'GATEWAY_UPSTREAM_CLOSED', upstream: 'upstream' });
    expect(textOf(await callB)).toBe('b: completed 4 steps');

    // The same session, served again by a new upstream process.
    expect(textOf(await a.client.callTool({ name: 'echo', arguments: { message: 'back' } }))).toBe('back');
    expect(childrenOf(served.proxy.child.pid!)).not.toContain(a.pid);
  } finally {
    await a.client.close();
    await b.client.close();
  }
});

it('does the same for the upstream 2026-07-28 requests share', async () => {
  const client = new ModernClient({ name: 'sdk-v2', version: '2.4.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new ModernHttpTransport(served.url));
  try {
    expect(textOf(await client.callTool({ name: 'echo', arguments: { message: 'shared' } }))).toBe('shared');
    // The shared upstream is the gateway's first child: started at start, to learn what it serves.
    const [shared] = childrenOf(served.proxy.child.pid!);
    let progressed!: () => void;
    const inFlight = new Promise<void>((resolve) => (progressed = resolve));
    const call = client.callTool({ name: 'slow', arguments: { steps: 50, delayMs: 100 } }, { onprogress: () => progressed() });
    await inFlight;
    process.kill(shared, 'SIGKILL');
    const error = await rejectionOf(call);
    expect(error.message).toContain('GATEWAY_UPSTREAM_CLOSED');
    expect(textOf(await client.callTool({ name: 'echo', arguments: { message: 'again' } }))).toBe('again');
    expect(childrenOf(served.proxy.child.pid!)).not.toContain(shared);
  } finally {
    await client.close();
  }
});

it('ends the idlest session at --max-sessions, and its upstream process with it', async () => {
  const small = await startProxy(['--http', '0', '--max-sessions', '1', '--', ...EVERYTHING]);
  const connect = async () => {
    const before = new Set(childrenOf(small.child.pid!));
    const client = new Client({ name: 'sdk-v1', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(small.urls[0])));
    expect(textOf(await client.callTool({ name: 'echo', arguments: { message: 'here' } }))).toBe('here');
    return { client, pid: childrenOf(small.child.pid!).find((pid) => !before.has(pid))! };
  };
  try {
    const first = await connect();
    const second = await connect();
    expect(second.pid).not.toBe(first.pid);
    // The first session made room for the second: its upstream process ends.
    while (childrenOf(small.child.pid!).includes(first.pid)) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(childrenOf(small.child.pid!)).toContain(second.pid);
    await first.client.close().catch(() => undefined);
    await second.client.close();
  } finally {
    await small.stop();
  }
});
