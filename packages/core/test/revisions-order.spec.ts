/**
 * Protocol revisions are ordered by their flags in @hermes-mcp/protocol's revisions.ts (REVISIONS),
 * never by comparing version strings: a string comparison holds only while every revision is a
 * date of the same form, and revisions.ts is the one place that says what each one has.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { PROTOCOL_VERSIONS, REVISIONS } from '@hermes-mcp/protocol';

describe('protocol revisions in core', () => {
  /** Every .ts file under `dir`. */
  function sources(dir: string): string[] {
    return readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
    });
  }

  it('are never ordered by comparing version strings (the SSE priming event reads REVISIONS[version].primingEvents)', () => {
    const compared = /\b\w*[vV]ersion\w*\s*[<>]=?\s*'\d{4}-\d{2}-\d{2}'|'\d{4}-\d{2}-\d{2}'\s*[<>]=?\s*\w*[vV]ersion/;
    const found = sources(join(__dirname, '../src')).filter((file) => compared.test(readFileSync(file, 'utf8')));
    expect(found).toEqual([]);
  });

  it('open SSE streams with a priming event from 2025-11-25 on, as the revision flags say', () => {
    expect(PROTOCOL_VERSIONS.filter((version) => REVISIONS[version].primingEvents)).toEqual(['2025-11-25', '2026-07-28']);
  });
});
