/**
 * What the counter server publishes for MCP Apps hosts, in process through @hermes-mcp/testing in
 * both eras (the browser test renders it): the tools' links to their view and their visibility,
 * the view's resource with the app MIME type and its CSP, and the counter itself. And the demo's
 * `/host` route, which answers only the demo's own page.
 */
import 'reflect-metadata';
import { createTestClient } from '@hermes-mcp/testing';
import { CounterServer, VIEW_URI } from '../src/counter.server';
import { startDemo } from '../src/demo';

const APP_MIME_TYPE = 'text/html;profile=mcp-app';

describe.each(['legacy', 'modern'] as const)('the counter server (%s era)', (era) => {
  it('links show and increment to the view, increment for the view only, show_secret for the model only', async () => {
    const client = await createTestClient(CounterServer, { era });
    try {
      const tools = Object.fromEntries((await client.listTools()).map((tool) => [tool.name, tool._meta]));
      expect(tools).toEqual({
        show: { ui: { resourceUri: VIEW_URI }, 'ui/resourceUri': VIEW_URI },
        increment: { ui: { resourceUri: VIEW_URI, visibility: ['app'] }, 'ui/resourceUri': VIEW_URI },
        show_secret: { ui: { visibility: ['model'] } },
      });
    } finally {
      await client.close();
    }
  });

  it('serves the view as one HTML document of the app MIME type, with its CSP on the listing and on the content', async () => {
    const client = await createTestClient(CounterServer, { era });
    try {
      const ui = { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true };
      expect(await client.listResources()).toEqual([expect.objectContaining({ uri: VIEW_URI, name: 'counter-view', mimeType: APP_MIME_TYPE, _meta: { ui } })]);
      const { contents } = await client.readResource(VIEW_URI);
      expect(contents).toEqual([{ uri: VIEW_URI, mimeType: APP_MIME_TYPE, text: expect.stringMatching(/^<!doctype html>/), _meta: { ui } }]);
      // The bundled view is inline: the document loads nothing (its CSP allows no other origin).
      expect((contents[0] as { text: string }).text).toMatch(/<script type="module">[^]+<\/script>/);
      expect((contents[0] as { text: string }).text).not.toMatch(/<script[^>]+src=/);
    } finally {
      await client.close();
    }
  }, 30_000);

  it('counts: show reads the counter, increment adds to it (validated: 1 to 100)', async () => {
    const client = await createTestClient(CounterServer, { era });
    try {
      expect((await client.callTool('show')).structuredContent).toEqual({ count: 0 });
      expect((await client.callTool('increment', { by: 2 })).structuredContent).toEqual({ count: 2 });
      expect(await client.callTool('increment', { by: 0 })).toMatchObject({ isError: true });
      expect((await client.callTool('show')).structuredContent).toEqual({ count: 2 });
    } finally {
      await client.close();
    }
  });
});

it("the demo's /host route refuses a request from another page's origin", async () => {
  const demo = await startDemo();
  try {
    const call = (origin: string) =>
      fetch(new URL('/host', demo.hostUrl), {
        method: 'POST',
        headers: { origin, 'content-type': 'application/json' },
        body: JSON.stringify({ method: 'tools/call', params: { name: 'increment', arguments: { by: 1 } } }),
      });
    const refused = await call('http://evil.example');
    expect(refused.status).toBe(403);
    expect(demo.counter.value).toBe(0);
    const answered = await call(new URL(demo.hostUrl).origin);
    expect(await answered.json()).toMatchObject({ result: { structuredContent: { count: 1 } } });
  } finally {
    await demo.close();
  }
}, 30_000);
