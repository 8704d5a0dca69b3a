/**
 * The curated public API: what applications use comes from '@hermes-mcp/core'; what adapters build
 * on from '@hermes-mcp/core/adapter' (semver-covered); what the other Hermes packages share from
 * '@hermes-mcp/core/internal', and not from the main entry (so it can change without breaking
 * applications).
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import * as core from '@hermes-mcp/core';
import * as adapter from '@hermes-mcp/core/adapter';
import * as internal from '@hermes-mcp/core/internal';

const ADAPTER_CONTRACT = [
  'HttpEndpoint',
  'HTTP_DEFAULTS',
  'HTTP_REFUSALS',
  'refuse',
  'sendError',
  'Deadlines',
  'NodeHttpResponse',
  'NodeHttpStream',
  'streamNodeResponse',
  'REFUSED',
];
const INTERNALS = ['DEFAULT_MAX_BUFFERED_BYTES', 'principalOf', 'allMethods', 'methodSpec'];

it('keeps the adapter contract out of the main entry and of /internal, in /adapter', () => {
  for (const name of ADAPTER_CONTRACT) {
    expect([name, name in core, name in internal, name in adapter]).toEqual([name, false, false, true]);
  }
});

it('keeps what the other packages share out of the main entry and in /internal', () => {
  for (const name of INTERNALS) {
    expect([name, name in core, name in internal]).toEqual([name, false, true]);
  }
});

/** The module specifiers a source file imports or re-exports from. */
function importsOf(file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(/^(?:import|export)\b[^;]*?from '([^']+)'/gms)].map((m) => m[1]);
}

it('builds the Fastify plugin on the adapter contract only: nothing from @hermes-mcp/core/internal', () => {
  const src = join(__dirname, '../../fastify/src');
  const files = readdirSync(src).filter((name) => name.endsWith('.ts'));
  expect(files.length).toBeGreaterThan(2);
  for (const name of files) expect([name, importsOf(join(src, name)).filter((from) => from.startsWith('@hermes-mcp/core/internal'))]).toEqual([name, []]);
});

it('builds the Web handler and the node listener on what /adapter and the main entry export, nothing only /internal has', () => {
  const core = join(__dirname, '../src');
  const internalOnly = importsOf(join(core, 'internal.ts')).map((from) => join(core, from));
  for (const file of ['transports/http/web.ts', 'transports/http/node.ts']) {
    const used = importsOf(join(core, file))
      .filter((from) => from.startsWith('.'))
      .map((from) => join(core, file, '..', from));
    expect([file, used.filter((module) => internalOnly.includes(module))]).toEqual([file, []]);
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

it("keeps the protocol's internals (SparseMap) out of its main entry, in @hermes-mcp/protocol/internal", () => {
  const protocol = require('@hermes-mcp/protocol') as Record<string, unknown>;

  const protocolInternal = require('@hermes-mcp/protocol/internal') as Record<string, unknown>;
  expect(['SparseMap', 'SparseMap' in protocol, typeof protocolInternal.SparseMap]).toEqual(['SparseMap', false, 'function']);
});
