/**
 * The in-memory DPoP replay store: a proof is taken once within its window, the store never
 * holds more than `maxEntries` (the oldest forgotten first), and expired proofs leave it.
 */
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
