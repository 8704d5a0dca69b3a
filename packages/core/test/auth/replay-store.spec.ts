/**
 * The in-memory DPoP replay store: a proof is taken once within its window, the store never
 * holds more than `maxEntries` (the oldest forgotten first), and expired proofs leave it.
 */
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { InMemoryReplayStore } from '@hermes-mcp/core';

it('takes a key once within its window, and again once the window has passed', async () => {
  const store = new InMemoryReplayStore();
  expect(store.firstSeen('k', 100)).toBe(true);
  expect(store.firstSeen('k', 100)).toBe(false);
  await sleep(150);
  expect(store.firstSeen('k', 100)).toBe(true);
});

it('holds at most maxEntries, forgetting the oldest first, and sweeps expired ones as it goes', async () => {
  const store = new InMemoryReplayStore(1_000);
  for (let i = 0; i < 5_000; i++) store.firstSeen(`a${i}`, 60_000);
  expect(store.size).toBe(1_000);
  expect(store.firstSeen('a4999', 60_000)).toBe(false);
  expect(store.firstSeen('a0', 60_000)).toBe(true);
  const short = new InMemoryReplayStore();
  for (let i = 0; i < 100; i++) short.firstSeen(`b${i}`, 50);
  await sleep(100);
  short.firstSeen('c', 50);
  expect(short.size).toBe(1);
});

it('costs about 130 bytes a proof: 200 000 proofs (the default bound) in under 40 MB', () => {
  // A child process (on the built package, as `npm test` builds it first): this one's heap holds jest and whatever other tests left.
  const script = `
    const { createHash, randomUUID } = require('node:crypto');
    const { InMemoryReplayStore } = require(${JSON.stringify(path.join(__dirname, '../../dist/index.js'))});
    const jkt = createHash('sha256').update('a key').digest('base64url');
    gc();
    const before = process.memoryUsage().heapUsed;
    const store = new InMemoryReplayStore();
    // The key the DPoP verifier gives: 128 bits of the key's thumbprint and the proof's jti.
    for (let i = 0; i < 200000; i++) store.firstSeen(createHash('sha256').update(jkt).update('.').update(randomUUID()).digest('base64url').slice(0, 22), 600000);
    gc();
    process.stdout.write(JSON.stringify({ size: store.size, bytes: process.memoryUsage().heapUsed - before }));`;
  const { size, bytes } = JSON.parse(execFileSync(process.execPath, ['--expose-gc', '-e', script], { encoding: 'utf8' })) as { size: number; bytes: number };
  expect(size).toBe(200_000);
  expect(bytes).toBeLessThan(40 * 1024 * 1024);
});
