/** Serves the notes server with `Deno.serve` on 127.0.0.1 and a free port; prints `listening <port>`. */
import { notesHandler } from './notes.server.ts';

declare const Deno: {
  serve(options: { hostname: string; port: number; onListen: (address: { port: number }) => void }, handler: (request: Request) => Promise<Response>): unknown;
};

Deno.serve({ hostname: '127.0.0.1', port: 0, onListen: ({ port }) => console.log(`listening ${port}`) }, notesHandler());
