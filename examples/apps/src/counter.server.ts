import { IsInt, Max, Min } from 'class-validator';
import { Service } from 'typedi';
import { AppResource, Description, McpServer, Tool } from '@hermes-mcp/core';
import { viewHtml } from './web';

/** The view's URI: the tools below name it, and the host reads it to render them. */
export const VIEW_URI = 'ui://counter/view.html';

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

  // The view: one HTML document, served as text/html;profile=mcp-app with these settings as
  // `_meta.ui` on the listed resource and on what it reads. It declares no domain of its own, so
  // the host's Content-Security-Policy lets it reach no other origin.
  @AppResource({
    uri: VIEW_URI,
    name: 'counter-view',
    description: 'The counter, with a button to add one',
    csp: { connectDomains: [], resourceDomains: [] },
    prefersBorder: true,
  })
  view(): Promise<string> {
    return viewHtml();
  }

  // The agent calls `show`; a host with Apps renders its result in the view.
  @Tool({ description: 'Shows the counter', output: CountOutput, ui: { resourceUri: VIEW_URI } })
  show(): CountOutput {
    return { count: this.counter.value };
  }

  // Only the view calls `increment` (its button): hosts keep it out of the agent's tool list.
  @Tool({ description: 'Adds to the counter (called by the view)', input: IncrementInput, output: CountOutput, ui: { resourceUri: VIEW_URI, visibility: ['app'] } })
  increment(input: IncrementInput): CountOutput {
    this.counter.value += input.by;
    return { count: this.counter.value };
  }

  @Tool({ name: 'show_secret', description: 'A tool for the model only: views may not call it', ui: { visibility: ['model'] } })
  showSecret(): string {
    return 'the model may know this';
  }
}
