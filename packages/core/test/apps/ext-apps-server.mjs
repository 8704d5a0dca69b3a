/**
 * The reference: an MCP Apps server written with ext-apps' own server helpers (`registerAppTool`,
 * `registerAppResource`) on the official SDK v2 server, over stdio. apps.spec.ts serves the same
 * app with `@AppResource` and `@Tool({ ui })` and compares what both put on the wire.
 *
 * ext-apps is ES modules only, so it runs here, in a process of its own, not in jest. The app it
 * serves comes as JSON in argv[2]: `{ html, ui, views: [{ uri, name, description?, meta }], tools: [{ name, description, meta }] }`.
 */
import { McpServer } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import { RESOURCE_MIME_TYPE, registerAppResource, registerAppTool } from '@modelcontextprotocol/ext-apps/server';

const app = JSON.parse(process.argv[2]);
const server = new McpServer({ name: 'ext-apps-reference', version: '2.0.4' });

for (const view of app.views) {
  const config = { ...(view.description && { description: view.description }), ...(view.meta && { _meta: view.meta }) };
  registerAppResource(server, view.name, view.uri, config, async () => ({
    contents: [{ uri: view.uri, mimeType: RESOURCE_MIME_TYPE, text: app.html, ...(view.meta && { _meta: view.meta }) }],
  }));
}
for (const tool of app.tools) {
  registerAppTool(server, tool.name, { description: tool.description, _meta: tool.meta }, async () => ({ content: [{ type: 'text', text: tool.name }] }));
}

await server.connect(new StdioServerTransport());
