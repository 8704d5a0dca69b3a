/**
 * The example as a user runs it (`npm start`): a client process starts the server process over
 * stdio and calls its tool in a 2025-11-25 session and in 2026-07-28. Both processes print their
 * spans; for each era the client's `tools/call forecast` span, the server's span of that name (in
 * the other process) and the tool's own span form one trace, parent to child, carried in
 * `params._meta.traceparent` — and the server's log line for the call carries that trace's ids.
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import type { PrintedSpan } from '../src/telemetry';

const MAIN = path.join(__dirname, '..', 'dist', 'main.js');

function run(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [MAIN], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

it('shows one trace from the client through the server, in both eras', async () => {
  const { code, stdout, stderr } = await run();
  expect(code).toBe(0);
  const lines = stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  const spans = lines.filter((line) => 'spanId' in line) as unknown as PrintedSpan[];
  for (const version of ['2025-11-25', '2026-07-28']) {
    const traceId = new RegExp(`${version}: Sunny in Oslo \\(trace ([0-9a-f]{32})\\)`).exec(stdout)?.[1];
    expect(traceId).toBeDefined();
    const inTrace = spans.filter((s) => s.traceId === traceId);
    const client = inTrace.find((s) => s.service === 'weather-client' && s.name === 'tools/call forecast')!;
    const server = inTrace.find((s) => s.service === 'weather-server' && s.name === 'tools/call forecast')!;
    const work = inTrace.find((s) => s.service === 'weather-server' && s.name === 'look up the forecast')!;
    expect(client).toMatchObject({ kind: 2, attributes: { 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'forecast', 'network.transport': 'pipe' } });
    expect(server).toMatchObject({
      kind: 1,
      parentSpanId: client.spanId,
      attributes: {
        'mcp.method.name': 'tools/call',
        'gen_ai.tool.name': 'forecast',
        'gen_ai.operation.name': 'execute_tool',
        'mcp.protocol.version': version,
        'network.transport': 'pipe',
        'jsonrpc.request.id': expect.any(String),
      },
    });
    expect(work.parentSpanId).toBe(server.spanId);
    const logged = lines.find((line) => line.msg === 'forecast asked' && line.trace_id === traceId);
    expect(logged).toMatchObject({ span_id: server.spanId, method: 'tools/call', city: 'Oslo' });
  }
  // Nothing but protocol went to the server's stdout: the client read every answer.
  expect(spans.filter((s) => s.service === 'weather-server' && s.name === 'initialize')).toHaveLength(1);
});
