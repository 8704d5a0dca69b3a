// The counter's view: an MCP App (`App` from @modelcontextprotocol/ext-apps) rendered by the host in
// a sandboxed iframe. It talks only to the host (postMessage); the host forwards its tool calls to
// the server. src/web.ts bundles it into the HTML the server serves as `ui://counter/view.html`.
import './jitless';
import { App } from '@modelcontextprotocol/ext-apps';

const countLine = document.getElementById('count')!;
const status = document.getElementById('status')!;

/** Shows the count a tool result carries (`structuredContent.count`, from the `show`/`increment` tools). */
function showCount(result: { structuredContent?: unknown }): void {
  const count = (result.structuredContent as { count?: unknown } | undefined)?.count;
  if (typeof count === 'number') countLine.textContent = `Count: ${count}`;
}

/** Shows why the host refused a call (its JSON-RPC code and message). */
function showRefusal(error: Error & { code?: number }): void {
  status.textContent = `Refused (${error.code}): ${error.message}`;
}

const app = new App({ name: 'hermes-counter-view', version: '0.1.0' });
// The result of the tool the host ran to open this view (`show`).
app.ontoolresult = showCount;

document.getElementById('increment')!.addEventListener('click', () => {
  app
    .callServerTool({ name: 'increment', arguments: { by: 1 } })
    .then((result) => (result.isError ? (status.textContent = `Error: ${JSON.stringify(result.content)}`) : showCount(result)), showRefusal);
});

// `show_secret` is for the model only (visibility ['model']): the host must refuse it from a view.
document.getElementById('model-only')!.addEventListener('click', () => {
  app.callServerTool({ name: 'show_secret', arguments: {} }).then(() => (status.textContent = 'show_secret answered (the host should have refused it)'), showRefusal);
});

// The view declares no connect domains, so the host's Content-Security-Policy blocks this request.
document.addEventListener('securitypolicyviolation', (event) => {
  status.textContent = `Blocked by CSP (${event.effectiveDirective}): ${event.blockedURI}`;
});
document.getElementById('fetch')!.addEventListener('click', () => {
  fetch('https://example.com/').catch(() => undefined);
});

void app.connect();
