/**
 * The gateway's error codes: docs/errors.md lists exactly GATEWAY_ERRORS, in order, each as the
 * -32603 it is sent as; and `gatewayError` makes that error.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { McpError } from '@hermes-mcp/protocol';
import { GATEWAY_ERRORS, gatewayError } from '@hermes-mcp/gateway';

it('docs/errors.md lists exactly the codes of GATEWAY_ERRORS, in the same order, as -32603', () => {
  const doc = readFileSync(join(__dirname, '../../../docs/errors.md'), 'utf8');
  const rows = [...doc.matchAll(/^\| `(GATEWAY_[A-Z_]+)` \| (-32\d{3}) \|/gm)].map((m) => [m[1], Number(m[2])]);
  expect(rows).toEqual(Object.keys(GATEWAY_ERRORS).map((code) => [code, -32603]));
});

it('makes the error a client receives: -32603, the code first in the message, { code, upstream } as data', () => {
  const error = gatewayError('GATEWAY_UPSTREAM_CLOSED', 'notes', 'gone');
  expect(error).toBeInstanceOf(McpError);
  expect([error.code, error.message, error.data]).toEqual([-32603, 'GATEWAY_UPSTREAM_CLOSED: gone', { code: 'GATEWAY_UPSTREAM_CLOSED', upstream: 'notes' }]);
});
