import { AppHost, McpClient, modelTools } from '@hermes-mcp/client';

/** What the host page may ask of the Node side: `host/open`, then its views' MCP requests. */
export type HostChannel = (method: string, params: Record<string, unknown>) => Promise<unknown>;

/**
 * The Node half of the demo host, over one client of the server: `host/open` runs a tool the way an
 * agent would and gives the page its view, the sandbox page to load it in (with the view's CSP in
 * the query, which the sandbox server turns into its header) and the tool's input and result;
 * everything else is a view's request, answered by `AppHost` — which refuses the tools a view may
 * not call.
 */
export async function hostChannel(client: McpClient, sandboxUrl: string): Promise<HostChannel> {
  const tools = await client.listAllTools();
  // The listed resources: a view whose content carries no settings takes its listed entry's.
  const host = new AppHost(client, tools, { resources: await client.listAllResources() });
  return async (method, params) => {
    if (method !== 'host/open') return host.handle(method, params);
    const opened = host.open(String(params.name), (params.arguments ?? {}) as Record<string, unknown>);
    const [view, result] = await Promise.all([opened.view, opened.result]);
    const sandbox = new URL(sandboxUrl);
    if (view.csp) sandbox.searchParams.set('csp', JSON.stringify(view.csp));
    return { sandboxUrl: sandbox.href, view, input: opened.input.arguments, result, agentTools: modelTools(tools).map((tool) => tool.name) };
  };
}
