// The demo host page: renders the view of the `show` tool with the official `AppBridge`, in a
// sandbox proxy iframe on another origin. The page holds no MCP client: the MCP side (an McpClient
// with `AppHost`, which enforces visibility) runs in Node, reached through POST /host
// (src/host-channel.ts); a desktop host would use its IPC instead.
import { AppBridge, PostMessageTransport } from '@modelcontextprotocol/ext-apps/app-bridge';

/** What `host/open` answers: the view to render and the tool call it shows. */
interface Opened {
  sandboxUrl: string;
  view: { html: string; csp?: Record<string, string[]>; permissions?: Record<string, object> };
  input: Record<string, unknown>;
  result: Parameters<AppBridge['sendToolResult']>[0];
  /** The tools the agent may call (visibility `model`). */
  agentTools: string[];
}

const log = (line: string) => (document.getElementById('log')!.textContent += `${line}\n`);

/** One call to the Node side; its refusals come back with their JSON-RPC code, which AppBridge passes on to the view. */
async function call<T>(method: string, params: unknown): Promise<T> {
  const response = await fetch('/host', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ method, params }) });
  const answer = (await response.json()) as { result?: T; error?: { code: number; message: string } };
  if (answer.error) throw Object.assign(new Error(answer.error.message), { code: answer.error.code });
  return answer.result as T;
}

async function main(): Promise<void> {
  const opened = await call<Opened>('host/open', { name: 'show', arguments: {} });
  document.getElementById('agent-tools')!.textContent = `The agent sees: ${opened.agentTools.join(', ')}`;
  const frame = document.createElement('iframe');
  frame.id = 'app';
  frame.setAttribute('sandbox', 'allow-scripts allow-same-origin');
  const proxyReady = new Promise<void>((resolve) => {
    window.addEventListener('message', function ready(event: MessageEvent<{ method?: string }>) {
      if (event.source !== frame.contentWindow || event.data?.method !== 'ui/notifications/sandbox-proxy-ready') return;
      window.removeEventListener('message', ready);
      resolve();
    });
  });
  frame.src = opened.sandboxUrl;
  document.getElementById('slot')!.appendChild(frame);
  await proxyReady;

  const bridge = new AppBridge(null, { name: 'hermes-demo-host', version: '0.1.0' }, { serverTools: {}, serverResources: {}, logging: {} });
  bridge.oncalltool = (params) => call('tools/call', params);
  bridge.onreadresource = (params) => call('resources/read', params);
  bridge.onloggingmessage = (params) => void call('notifications/message', params);
  // Nothing goes to the view before it says it is initialized (the spec's lifecycle).
  bridge.oninitialized = () => {
    void bridge.sendToolInput({ arguments: opened.input }).then(() => bridge.sendToolResult(opened.result));
    log('view initialized; tool input and result sent');
  };
  await bridge.connect(new PostMessageTransport(frame.contentWindow!, frame.contentWindow!));
  await bridge.sendSandboxResourceReady({ html: opened.view.html, csp: opened.view.csp, permissions: opened.view.permissions });
}

main().catch((error: unknown) => log(`host error: ${error instanceof Error ? error.message : String(error)}`));
