/**
 * examples/gateway: its `mcp.json` served by `hermes-mcp proxy --config … --http 0`, each server
 * answering at `/<name>/mcp` as its README shows.
 */
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttpTransport } from '@modelcontextprotocol/client';
import { REPO_ROOT, startProxy, textOf } from './support';

it('serves the notes at /notes/mcp and the everything example at /everything/mcp', async () => {
  const gateway = await startProxy(['--config', path.join(REPO_ROOT, 'examples/gateway/mcp.json'), '--http', '0'], 2);
  try {
    const [notes, everything] = gateway.urls;
    expect([new URL(notes).pathname, new URL(everything).pathname]).toEqual(['/notes/mcp', '/everything/mcp']);
    const modern = new ModernClient({ name: 'readme', version: '1' });
    await modern.connect(new ModernHttpTransport(new URL(notes)));
    expect((await modern.callTool({ name: 'add', arguments: { a: 2, b: 3 } })).structuredContent).toEqual({ sum: 5 });
    await modern.close();
    const legacy = new Client({ name: 'readme', version: '1' });
    await legacy.connect(new StreamableHTTPClientTransport(new URL(everything)));
    expect(textOf(await legacy.callTool({ name: 'echo', arguments: { message: 'hi' } }))).toBe('hi');
    await legacy.close();
  } finally {
    await gateway.stop();
  }
});
