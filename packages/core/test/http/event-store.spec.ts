/** The in-memory event store: replay by stream and number, priming marks, forgetting, and the per-session limit. */
import type { JsonRpcMessage } from '@hermes-mcp/protocol';
import { InMemoryEventStore } from '../../src/stores/event-store';

const note = (n: number): JsonRpcMessage => ({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't', progress: n } });
const progressOf = (events: Array<{ message: JsonRpcMessage | JsonRpcMessage[] }> | undefined) =>
  events!.map((e) => (e.message as unknown as { params: { progress: number } }).params.progress);

describe('InMemoryEventStore', () => {
  it('replays what came after a number of that stream only; a priming mark is resumable but not replayed', () => {
    const store = new InMemoryEventStore();
    store.append('p0', 1);
    for (const n of [2, 3, 4]) store.append('p0', n, note(n));
    store.append('p1', 1, note(9));
    expect(store.replayAfter('p0', 1)).toEqual([2, 3, 4].map((seq) => ({ seq, message: note(seq) })));
    expect(progressOf(store.replayAfter('p0', 3))).toEqual([4]);
    expect(store.replayAfter('p0', 4)).toEqual([]);
    expect(progressOf(store.replayAfter('p1', 0))).toEqual([9]);
    // A number the stream never reached, a stream it never had, a number that is not one.
    for (const [stream, seq] of [
      ['p0', 5],
      ['p9', 1],
      ['p0', Number.NaN],
      ['p0', 1.5],
    ] as const)
      expect(store.replayAfter(stream, seq)).toBeUndefined();
  });

  it('knows a stream that only had its priming mark', () => {
    const store = new InMemoryEventStore();
    store.append('get', 1);
    expect(store.replayAfter('get', 1)).toEqual([]);
    expect(store.replayAfter('get', 2)).toBeUndefined();
  });

  it('forgets a stream entirely', () => {
    const store = new InMemoryEventStore();
    store.append('p0', 1, note(1));
    store.forget('p0');
    store.forget('p0');
    expect(store.replayAfter('p0', 0)).toBeUndefined();
    expect(store.replayAfter('p0', 1)).toBeUndefined();
  });

  it('keeps at most `limit` events: the oldest stream loses its oldest first, and resuming from before them fails', () => {
    const store = new InMemoryEventStore(3);
    store.append('a', 1, note(1));
    store.append('a', 2, note(2));
    store.append('b', 1, note(3));
    store.append('b', 2, note(4));
    // Four events for a limit of three: a_1 went.
    expect(store.replayAfter('a', 1)!.map((e) => e.seq)).toEqual([2]);
    expect(store.replayAfter('a', 0)).toBeUndefined();
    store.append('b', 3, note(5));
    // a_2 went too; resuming from a_2 (the client had it) still works and gives nothing more.
    expect(store.replayAfter('a', 1)).toBeUndefined();
    expect(store.replayAfter('a', 2)).toEqual([]);
    expect(progressOf(store.replayAfter('b', 1))).toEqual([4, 5]);
  });

  it('counts a forgotten stream out of the limit', () => {
    const store = new InMemoryEventStore(2);
    store.append('get', 1, note(1));
    for (let n = 0; n < 100; n++) {
      store.append(`p${n}`, 1, note(2));
      store.forget(`p${n}`);
    }
    expect(progressOf(store.replayAfter('get', 0))).toEqual([1]);
    expect(store.replayAfter('get', 1)).toEqual([]);
  });

  it('keeps at most `maxBytes` characters of events: the oldest go first, the newest stays whatever its size', () => {
    const store = new InMemoryEventStore(1000, 100);
    store.append('a', 1, note(1), undefined, 40);
    store.append('a', 2, note(2), undefined, 40);
    expect(progressOf(store.replayAfter('a', 0))).toEqual([1, 2]);
    store.append('b', 1, note(3), undefined, 40);
    // 120 characters for a limit of 100: a_1 went.
    expect(store.replayAfter('a', 0)).toBeUndefined();
    expect(progressOf(store.replayAfter('a', 1))).toEqual([2]);
    store.forget('a');
    // One event larger than the limit is kept alone.
    store.append('c', 1, note(4), undefined, 500);
    expect(store.replayAfter('b', 0)).toBeUndefined();
    expect(progressOf(store.replayAfter('c', 0))).toEqual([4]);
    store.append('c', 2, note(5), undefined, 10);
    expect(progressOf(store.replayAfter('c', 1))).toEqual([5]);
  });
});
