/** The in-memory event store: ids, replay, forgetting, and the per-session limit. */
import type { JsonRpcMessage } from '@hermes-mcp/protocol';
import { InMemoryEventStore } from '../../src/transports/http/event-store';

const note = (n: number): JsonRpcMessage => ({ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 't', progress: n } });
const progressOf = (events: Array<{ message: JsonRpcMessage | JsonRpcMessage[] }>) => events.map((e) => (e.message as unknown as { params: { progress: number } }).params.progress);

describe('InMemoryEventStore', () => {
  it('numbers events per stream, priming marks included, and replays what came after an id of that stream only', () => {
    const store = new InMemoryEventStore();
    const priming = store.mark('p0');
    const ids = [1, 2, 3].map((n) => store.append('p0', note(n)));
    store.append('p1', note(9));
    expect([priming, ...ids]).toEqual(['p0_1', 'p0_2', 'p0_3', 'p0_4']);
    expect(store.replayAfter(priming)).toEqual({ streamId: 'p0', events: ids.map((id, i) => ({ id, message: note(i + 1) })) });
    expect(progressOf(store.replayAfter('p0_3')!.events)).toEqual([3]);
    expect(store.replayAfter('p0_4')!.events).toEqual([]);
    for (const unknown of ['p0_5', 'p9_1', 'nope', '_1', 'p0_x']) expect(store.replayAfter(unknown)).toBeUndefined();
  });

  it('forgets a stream entirely', () => {
    const store = new InMemoryEventStore();
    const id = store.append('p0', note(1));
    store.forget('p0');
    store.forget('p0');
    expect(store.replayAfter(id)).toBeUndefined();
  });

  it('keeps at most `limit` events: the oldest stream loses its oldest first, and resuming from before them fails', () => {
    const store = new InMemoryEventStore(3);
    const a = [1, 2].map((n) => store.append('a', note(n)));
    const b = [3, 4].map((n) => store.append('b', note(n)));
    // Four events for a limit of three: a_1 went.
    expect(store.replayAfter(a[0])!.events.map((e) => e.id)).toEqual([a[1]]);
    expect(store.replayAfter('a_0')).toBeUndefined();
    store.append('b', note(5));
    // a_2 went too; resuming from a_2 (the client had it) still works and gives nothing more.
    expect(store.replayAfter(a[0])).toBeUndefined();
    expect(store.replayAfter(a[1])!.events).toEqual([]);
    expect(progressOf(store.replayAfter(b[0])!.events)).toEqual([4, 5]);
  });

  it('counts a forgotten stream out of the limit', () => {
    const store = new InMemoryEventStore(2);
    const kept = store.append('get', note(1));
    for (let n = 0; n < 100; n++) {
      store.append(`p${n}`, note(2));
      store.forget(`p${n}`);
    }
    expect(progressOf(store.replayAfter('get_0')!.events)).toEqual([1]);
    expect(store.replayAfter(kept)!.events).toEqual([]);
  });
});
