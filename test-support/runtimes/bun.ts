/** Serves the notes server with `Bun.serve` on 127.0.0.1 and a free port; prints `listening <port>`. */
import { notesHandler } from './notes.server';

declare const Bun: { serve(options: { hostname: string; port: number; idleTimeout: number; fetch: (request: Request) => Promise<Response> }): { port: number } };

// idleTimeout 0: Bun closes a connection idle for 10 s by default, a listen stream too.
const server = Bun.serve({ hostname: '127.0.0.1', port: 0, idleTimeout: 0, fetch: notesHandler() });
console.log(`listening ${server.port}`);
