/**
 * `npm start`: a client process that starts the server process over stdio and calls its tool in
 * both eras (a 2025-11-25 session, then 2026-07-28). Both print their spans to stderr as JSON lines
 * (the server's come through this process' stderr): each client `tools/call forecast` span and the
 * server's span of the same name share one trace id, carried in `params._meta.traceparent`.
 */
import * as path from 'node:path';
import { trace } from '@opentelemetry/api';
import { McpClient, StdioClientTransport } from '@hermes-mcp/client';
import { startTelemetry } from './telemetry';

async function main(): Promise<void> {
  const telemetry = startTelemetry('weather-client');
  const server = path.join(__dirname, 'server.js');
  for (const protocolVersion of ['2025-11-25', '2026-07-28'] as const) {
    const client = new McpClient(new StdioClientTransport({ command: process.execPath, args: [server], onStderr: (chunk) => process.stderr.write(chunk) }), { protocolVersion });
    await client.connect();
    // The client's spans are children of whatever span is active: here, one for the whole run.
    await trace.getTracer('example').startActiveSpan(`weather in ${protocolVersion}`, async (span) => {
      const result = await client.callTool('forecast', { city: 'Oslo' });
      const text = result.content?.[0]?.type === 'text' ? result.content[0].text : '';
      process.stdout.write(`${protocolVersion}: ${text} (trace ${span.spanContext().traceId})\n`);
      span.end();
    });
    await client.close();
  }
  await telemetry.shutdown();
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
