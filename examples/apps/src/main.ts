import 'reflect-metadata';
import { startDemo } from './demo';

/**
 * `npm start`: the counter server with its demo host page on 127.0.0.1, port `PORT` (default 3000),
 * and the sandbox proxy on the next port (`PORT=0`: two free ones).
 */
async function main(): Promise<void> {
  const port = Number(process.env.PORT ?? 3000);
  const demo = await startDemo({ port, sandboxPort: port === 0 ? 0 : port + 1, logLevel: process.env.LOG_LEVEL ?? 'warn' });
  process.stderr.write(
    [
      '',
      `Hermes counter with an MCP App: MCP over Streamable HTTP at ${demo.mcpUrl}`,
      `Open the demo host page in a browser: ${demo.hostUrl}`,
      `  (its views render in a sandbox proxy on another origin: ${demo.sandboxUrl})`,
      'Press Ctrl+C to stop.',
      '',
    ].join('\n'),
  );
  const stop = async () => {
    await demo.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
