import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CATALOG, HermesError } from '@hermes-mcp/core';

describe('error catalog', () => {
  const doc = readFileSync(join(__dirname, '../../../docs/errors.md'), 'utf8');
  const documented = [...doc.matchAll(/^\| `(HERMES_[A-Z_]+)` \|/gm)].map((m) => m[1]);

  it('docs/errors.md lists exactly the codes of ERROR_CATALOG, in the same order', () => {
    expect(documented).toEqual(Object.keys(ERROR_CATALOG));
  });

  it('every documented protocol code is one the protocol package defines', () => {
    const { ErrorCode } = require('@hermes-mcp/protocol');
    const codes = [...doc.matchAll(/^\| (-32\d{3}) \| (\w+) \|/gm)].map((m) => [Number(m[1]), m[2]]);
    expect(codes.length).toBeGreaterThanOrEqual(8);
    for (const [code, name] of codes) expect(ErrorCode[name as string]).toBe(code);
  });

  it('every protocol code the protocol package defines is documented', () => {
    const { ErrorCode } = require('@hermes-mcp/protocol');
    const names = [...doc.matchAll(/^\| (-32\d{3}) \| (\w+) \|/gm)].map((m) => m[2]);
    expect(names.sort()).toEqual(Object.keys(ErrorCode).sort());
  });

  it('every local error class (a string code, no wire code) is documented with its code', () => {
    const { ConnectionClosedError } = require('@hermes-mcp/protocol');
    const { SkillVerificationError } = require('@hermes-mcp/client');
    const local = [...doc.matchAll(/^\| `([A-Z_]+)` \| `(\w+Error)` \|/gm)].map((m) => [m[1], m[2]]);
    expect(local).toEqual([
      [new ConnectionClosedError('x').code, ConnectionClosedError.name],
      [new SkillVerificationError('size', 'skill://x/SKILL.md', 'x').code, new SkillVerificationError('size', 'skill://x/SKILL.md', 'x').name],
    ]);
  });

  it('HermesError carries its code and prefixes the message with it', () => {
    const error = new HermesError('HERMES_DUPLICATE_NAME', 'the tool "x" is declared twice');
    expect(error.code).toBe('HERMES_DUPLICATE_NAME');
    expect(error.message).toBe('HERMES_DUPLICATE_NAME: the tool "x" is declared twice');
    expect(error).toBeInstanceOf(Error);
  });
});
