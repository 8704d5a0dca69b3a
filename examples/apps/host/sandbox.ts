// The sandbox proxy of a web host (MCP Apps: "Web hosts MUST use a sandbox proxy"). This page is
// served from another origin than the host page, with the view's Content-Security-Policy as an
// HTTP header (src/demo.ts). It loads the view's HTML into an inner iframe, which inherits
// that policy, and relays every other message between the host and the view, checking origins.
// A trimmed port of ext-apps' examples/basic-host/src/sandbox.ts.
export {};

const READY = 'ui/notifications/sandbox-proxy-ready';
const RESOURCE_READY = 'ui/notifications/sandbox-resource-ready';

if (window.self === window.top) throw new Error('sandbox.html only runs inside a host page');
// The host page's origin, the only one whose messages are taken (the referrer policy keeps it).
const hostOrigin = new URL(document.referrer).origin;
const ownOrigin = window.location.origin;

const inner = document.createElement('iframe');
inner.setAttribute('sandbox', 'allow-scripts allow-same-origin allow-forms');
document.body.appendChild(inner);

interface ResourceReady {
  html?: string;
  sandbox?: string;
  permissions?: Record<string, unknown>;
}

/**
 * The iframe `allow` attribute for the permissions the view asked for (those the spec names): ext-apps'
 * `buildAllowAttribute`, written out because importing app-bridge would make this page 650 KB.
 */
function allowOf(permissions: Record<string, unknown> = {}): string {
  const features = { camera: 'camera', microphone: 'microphone', geolocation: 'geolocation', clipboardWrite: 'clipboard-write' };
  return Object.entries(features)
    .filter(([key]) => permissions[key] !== undefined)
    .map(([, feature]) => feature)
    .join('; ');
}

window.addEventListener('message', (event: MessageEvent<{ method?: string; params?: ResourceReady }>) => {
  if (event.source === window.parent) {
    if (event.origin !== hostOrigin) return;
    if (event.data?.method !== RESOURCE_READY) {
      inner.contentWindow?.postMessage(event.data, '*');
      return;
    }
    const { html, sandbox, permissions } = event.data.params ?? {};
    if (typeof sandbox === 'string') inner.setAttribute('sandbox', sandbox);
    const allow = allowOf(permissions);
    if (allow) inner.setAttribute('allow', allow);
    if (typeof html !== 'string') return;
    // document.write keeps the inner document on this origin, under this page's policy.
    const doc = inner.contentDocument!;
    doc.open();
    doc.write(html);
    doc.close();
  } else if (event.source === inner.contentWindow && event.origin === ownOrigin) {
    window.parent.postMessage(event.data, hostOrigin);
  }
});

window.parent.postMessage({ jsonrpc: '2.0', method: READY, params: {} }, hostOrigin);
