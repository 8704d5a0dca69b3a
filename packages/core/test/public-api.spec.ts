/**
 * The curated public API: what applications use comes from '@hermes-mcp/core'; what adapters and
 * the other Hermes packages build on comes from '@hermes-mcp/core/internal', and not from the main
 * entry (so it can change without breaking applications).
 */
import * as core from '@hermes-mcp/core';
import * as internal from '@hermes-mcp/core/internal';

const ADAPTER_INTERNALS = ['HttpEndpoint', 'HTTP_DEFAULTS', 'sendError', 'NodeHttpStream', 'DEFAULT_MAX_BUFFERED_BYTES', 'allMethods', 'methodSpec'];

it('keeps adapter internals out of the main entry and in /internal', () => {
  for (const name of ADAPTER_INTERNALS) {
    expect([name, name in core]).toEqual([name, false]);
    expect([name, name in internal]).toEqual([name, true]);
  }
});

it('keeps engine internals of earlier releases out of the main entry', () => {
  for (const name of ['ModernHandler', 'readEnvelope', 'checkVersion', 'checkMethod', 'hasModernClaim', 'Engine', 'Connection']) {
    expect([name, name in core]).toEqual([name, false]);
  }
});

it('exports what applications need from the main entry', () => {
  for (const name of [
    'McpServer',
    'Tool',
    'Resource',
    'Prompt',
    'McpFactory',
    'McpApp',
    'McpContext',
    'createWebHandler',
    'toNodeListener',
    'HttpError',
    'StdioTransport',
    'WebSocketTransport',
    'ToolError',
    'McpError',
  ]) {
    expect([name, name in core]).toEqual([name, true]);
  }
});
