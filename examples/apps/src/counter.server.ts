import { IsInt, Max, Min } from 'class-validator';
import { Service } from 'typedi';
import { Description, McpServer, Resource, Tool } from '@hermes-mcp/core';
import { viewHtml } from './web';

/** The view's URI: the tools below name it, and the host reads it to render them. */
export const VIEW_URI = 'ui://counter/view.html';
const APP_MIME_TYPE = 'text/html;profile=mcp-app';

/** Input of `increment`. */
export class IncrementInput {
  @Description('How much to add') @IsInt() @Min(1) @Max(100) by!: number;
}

/** What `show` and `increment` return: the view reads `structuredContent.count`. */
export class CountOutput {
  @IsInt() count!: number;
}

/** The counter the server keeps (one per server instance). */
@Service()
export class Counter {
  value = 0;
}

/**
 * A counter with an MCP App: `show` opens the view, whose button calls `increment` (a tool only the
 * view may call), and `show_secret` is a tool only the model may call.
 */
@McpServer({ name: 'hermes-counter', version: '0.1.0', title: 'Hermes counter (MCP Apps example)' })
export class CounterServer {
  constructor(private readonly counter: Counter) {}

  @Resource({
    uri: VIEW_URI,
    name: 'counter-view',
    description: 'The counter, with a button to add one',
    mimeType: APP_MIME_TYPE,
    _meta: { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } },
  })
  async view() {
    const ui = { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true };
    return { contents: [{ uri: VIEW_URI, mimeType: APP_MIME_TYPE, text: await viewHtml(), _meta: { ui } }] };
  }

  @Tool({ description: 'Shows the counter', output: CountOutput, _meta: { ui: { resourceUri: VIEW_URI }, 'ui/resourceUri': VIEW_URI } })
  show(): CountOutput {
    return { count: this.counter.value };
  }

  @Tool({
    description: 'Adds to the counter (called by the view)',
    input: IncrementInput,
    output: CountOutput,
    _meta: { ui: { resourceUri: VIEW_URI, visibility: ['app'] }, 'ui/resourceUri': VIEW_URI },
  })
  increment(input: IncrementInput): CountOutput {
    this.counter.value += input.by;
    return { count: this.counter.value };
  }

  @Tool({ name: 'show_secret', description: 'A tool for the model only: views may not call it', _meta: { ui: { visibility: ['model'] } } })
  showSecret(): string {
    return 'the model may know this';
  }
}
