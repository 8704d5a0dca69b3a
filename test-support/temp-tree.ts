/**
 * A folder of files under the system's temp directory, for tests that read a tree from disk
 * (skills folders, projects). Callers remove it when done (`rmSync(root, { recursive: true })`).
 */
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

/** Writes `files` (relative path → content) under a new temp folder named from `prefix`; returns its path. */
export function tempTree(prefix: string, files: Readonly<Record<string, string | Uint8Array>>): string {
  const root = mkdtempSync(path.join(tmpdir(), prefix));
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), content);
  }
  return root;
}
