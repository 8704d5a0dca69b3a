// The counter under the reference host stack, for interop: the official SDK v2 `Client` runs in the
// page (Streamable HTTP to /mcp of the same origin, so no CORS), and `AppBridge(client)` forwards
// the view's requests to it by itself. Unlike host.ts nothing here enforces the tools' visibility:
// AppBridge does not, so a real host on this stack must (AppHost does it for a Hermes client).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { AppBridge, PostMessageTransport, RESOURCE_MIME_TYPE, getToolUiResourceUri } from '@modelcontextprotocol/ext-apps/app-bridge';

/** What the sandbox proxy is given: the view's HTML and the settings it declared. */
type ResourceReady = Parameters<AppBridge['sendSandboxResourceReady']>[0];

const log = (line: string) => (document.getElementById('log')!.textContent += `${line}\n`);

async function main(): Promise<void> {
  const sandboxUrl = new URLSearchParams(location.search).get('sandbox');
  if (!sandboxUrl) throw new Error('open this page with ?sandbox=<the sandbox page>');
  const client = new Client({ name: 'sdk-demo-host', version: '0.1.0' }, { capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [RESOURCE_MIME_TYPE] } } } });
  await client.connect(new StreamableHTTPClientTransport(new URL('/mcp', location.href)));
  const { tools } = await client.listTools();
  const uri = getToolUiResourceUri(tools.find((tool) => tool.name === 'show')!)!;
  const [read, result] = await Promise.all([client.readResource({ uri }), client.callTool({ name: 'show', arguments: {} })]);
  const content = read.contents[0] as { mimeType?: string; text?: string; _meta?: { ui?: Pick<ResourceReady, 'csp' | 'permissions'> } };
  if (content.mimeType !== RESOURCE_MIME_TYPE || typeof content.text !== 'string') throw new Error(`${uri} is not an MCP App view`);
  const { csp, permissions } = content._meta?.ui ?? {};

  const frame = document.createElement('iframe');
  frame.id = 'app';
  frame.setAttribute('sandbox', 'allow-scripts allow-same-origin');
  const sandbox = new URL(sandboxUrl);
  if (csp) sandbox.searchParams.set('csp', JSON.stringify(csp));
  const bridge = new AppBridge(client, { name: 'sdk-demo-host', version: '0.1.0' }, { serverTools: {}, serverResources: {} });
  const proxyReady = new Promise<void>((resolve) => (bridge.onsandboxready = () => resolve()));
  bridge.oninitialized = () => void bridge.sendToolInput({ arguments: {} }).then(() => bridge.sendToolResult(result));
  frame.src = sandbox.href;
  document.getElementById('slot')!.appendChild(frame);
  await bridge.connect(new PostMessageTransport(frame.contentWindow!, frame.contentWindow!));
  await proxyReady;
  await bridge.sendSandboxResourceReady({ html: content.text, csp, permissions });
}

main().catch((error: unknown) => log(`host error: ${error instanceof Error ? error.message : String(error)}`));
