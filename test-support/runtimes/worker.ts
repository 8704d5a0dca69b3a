/**
 * The notes server as a Cloudflare Worker (bundled by the runtime test with esbuild, served by
 * workerd). The handler is made at module scope, as a worker's would be: nothing in it may draw
 * random bytes or do I/O there (Workers forbid both outside a request).
 */
import { notesHandler } from './notes.server';

const mcp = notesHandler();

export default {
  fetch(request: Request): Promise<Response> {
    return mcp(request);
  },
};
