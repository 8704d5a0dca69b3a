import { Service } from 'typedi';
import type { McpApp } from '@hermes-mcp/core';

/** What the server observed, so a test (or a curious person) can ask: aborted handlers, roots changes. */
@Service()
export class Observations {
  /** Labels of `slow` calls whose handler saw `ctx.signal.aborted`. */
  readonly aborted: string[] = [];
  /** How many `notifications/roots/list_changed` arrived, and the roots read after the last one. */
  rootsChanges = 0;
  lastRoots: unknown[] = [];
}

/** The running app, for tools that change the server (set by main.ts after bootstrap). */
@Service()
export class AppRef {
  app?: McpApp;

  get(): McpApp {
    if (!this.app) throw new Error('the app is not running yet');
    return this.app;
  }
}
