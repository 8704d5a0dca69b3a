import type { McpClient } from '@hermes-mcp/client';

/** What the host page may ask of the Node side: `host/open`, then the view's own MCP requests. */
export type HostChannel = (method: string, params: unknown) => Promise<unknown>;

type Tool = Awaited<ReturnType<McpClient['listTools']>>['tools'][number];

// TEMPORARY until AppHost lands (i30-apps): the visibility rule and the view read, by hand.
function visibilityOf(tool: Tool): string[] {
  const ui = (tool._meta as { ui?: { visibility?: string[] } } | undefined)?.ui;
  return ui?.visibility ?? ['model', 'app'];
}

/**
 * The Node half of the demo host: opens a tool's view for the page and answers the view's requests
 * through `client`, refusing tools the view may not call.
 */
export function hostChannel(client: McpClient, tools: Tool[], sandboxUrl: string): HostChannel {
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  return async (method, params) => {
    const p = (params ?? {}) as { name?: string; arguments?: Record<string, unknown>; uri?: string };
    switch (method) {
      case 'host/open': {
        const tool = byName.get(p.name ?? '');
        const uri = (tool?._meta as { ui?: { resourceUri?: string } } | undefined)?.ui?.resourceUri;
        if (!uri) throw Object.assign(new Error(`tool ${p.name} has no view`), { code: -32602 });
        const input = p.arguments ?? {};
        const [read, result] = await Promise.all([client.readResource(uri), client.callTool(p.name!, input)]);
        const content = read.contents[0] as { text: string; _meta?: { ui?: { csp?: Record<string, string[]>; permissions?: Record<string, object> } } };
        const view = { html: content.text, csp: content._meta?.ui?.csp, permissions: content._meta?.ui?.permissions };
        const url = new URL(sandboxUrl);
        url.searchParams.set('csp', JSON.stringify(view.csp ?? {}));
        return { sandboxUrl: url.href, view, input, result };
      }
      case 'tools/call': {
        const tool = byName.get(p.name ?? '');
        if (!tool || !visibilityOf(tool).includes('app')) throw Object.assign(new Error(`tool ${p.name} is not callable from an app`), { code: -32602 });
        return client.callTool(p.name!, p.arguments ?? {});
      }
      case 'resources/read':
        return client.readResource(p.uri ?? '');
      case 'notifications/message':
        return {};
      default:
        throw Object.assign(new Error(`method not found: ${method}`), { code: -32601 });
    }
  };
}
