import type { AppResourceOptions } from '../metadata/options';
import { createHandlerDecorator } from './handler.decorator';

/**
 * Marks a method as the HTML view of an MCP App: a resource at a static `ui://` URI, served as
 * `text/html;profile=mcp-app`, with its sandbox settings (`csp`, `permissions`, `domain`,
 * `prefersBorder`) as `_meta.ui` on the listed resource and on what it reads. The method returns
 * the HTML as a string (→ `text`) or bytes (→ `blob`), or a full `ReadResourceResult`, whose
 * missing `mimeType` and `_meta` are filled in. Tools link to it with `@Tool({ ui: { resourceUri } })`.
 *
 * @example
 * \@AppResource({ uri: 'ui://counter/view.html', name: 'counter-view', csp: { connectDomains: ['https://api.example.com'] } })
 * view() { return readFileSync(VIEW_HTML, 'utf8'); }
 */
export function AppResource(options: AppResourceOptions): MethodDecorator {
  return createHandlerDecorator('app', options);
}
