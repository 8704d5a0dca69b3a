/**
 * A session's SSE events in Redis, so a client that lost its connection resumes with
 * `Last-Event-ID` on any instance.
 *
 * Two kinds of key, all in the session's hash slot. The session's index, `{prefix}events:{{session}}`, is a hash with one field per
 * stream, `{top} {last} {floor}`: the number of its newest event (a priming event's too), of its
 * newest event with a message, and of the newest event trimmed (a resumption from before it would
 * skip events). Each stream that has events with a message keeps them in a list,
 * `{prefix}events:{{session}}:{stream}`, one entry per event, `{seq}\n{key}\n{message as JSON}`.
 *
 * Why lists and a hash, not Redis Streams: a stream's first node preallocates 4 KB
 * (`stream-node-max-bytes`, a server setting) however little it holds, so every session with a GET
 * stream cost Redis ~4.7 KB; a list and a hash field cost what their entries hold. A priming event
 * has no message: it is a number in the index, and a stream that never carries a message has no
 * list at all. The index is also what lets {@link RedisEventStore.clear} find every stream of the
 * session, whichever instance made it.
 *
 * The window is bounded twice: at most `maxPerStream` events with a message per stream (older ones
 * are trimmed), and `maxAgeMs` after a stream's last event (its list expires; the index, after the
 * last event of any of the session's streams). A resumption from an event no longer kept fails
 * (the endpoint answers 400) rather than skipping events silently.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { JsonRpcMessage } from '@hermes-mcp/protocol';
import type { ClaimedStream, EventStore, StoredEvent } from '@hermes-mcp/core';
import { RedisConnection, Script } from './connection';

/** The bounds of the replay window of each stream. */
export interface EventWindow {
  /** Most events kept per stream (default 1000). */
  maxPerStream?: number;
  /** How long a stream is kept after its last event, in milliseconds (default 1 hour). */
  maxAgeMs?: number;
}

/** The defaults of {@link EventWindow}. */
export const EVENT_WINDOW_DEFAULTS = Object.freeze({ maxPerStream: 1000, maxAgeMs: 3_600_000 });

/**
 * Reads a stream's field of the index (KEYS[1], field ARGV[1]) into `top`, `last`, `floor` and
 * `owner` (the instance that claimed the stream, '' when none did); `kept` is false when the index
 * has no such stream.
 */
const READ_INDEX = `
local kept = redis.call('HGET', KEYS[1], ARGV[1])
local top, last, floor, owner = 0, 0, 0, ''
if kept then
  local t, l, f, o = string.match(kept, '^(%d+) (%d+) (%d+) ?(%S*)$')
  top, last, floor, owner = tonumber(t), tonumber(l), tonumber(f), o
end
`;

/** Writes the stream's field of the index back from `top`, `last`, `floor` and `owner`. */
const WRITE_INDEX = `
if owner == '' then
  redis.call('HSET', KEYS[1], ARGV[1], string.format('%d %d %d', top, last, floor))
else
  redis.call('HSET', KEYS[1], ARGV[1], string.format('%d %d %d %s', top, last, floor, owner))
end
`;

/**
 * Keeps one event: KEYS the index and the stream's list; ARGV the stream id, the event's number,
 * the window (age, length), the writing instance, and the entry (none for a priming event). Dropped
 * when another instance claimed the stream (it resumed it, {@link CLAIM}), or numbered at or below
 * the stream's newest: the events the current holder numbered are the ones a client may have seen.
 * A stream new to the index is resumable from just before its first event only (its earlier
 * events, if any, are gone).
 */
const APPEND = new Script(`${READ_INDEX}
local seq = tonumber(ARGV[2])
if kept then
  if seq <= top or (owner ~= '' and owner ~= ARGV[5]) then return 0 end
else
  floor = seq - 1
end
top = seq
if ARGV[6] then
  local length = redis.call('RPUSH', KEYS[2], ARGV[6])
  last = seq
  local over = length - tonumber(ARGV[4])
  if over > 0 then
    floor = tonumber(string.match(redis.call('LINDEX', KEYS[2], over - 1), '^%d+'))
    redis.call('LTRIM', KEYS[2], over, -1)
  end
  redis.call('PEXPIRE', KEYS[2], ARGV[3])
end
${WRITE_INDEX}
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1`);

/**
 * Whether the stream can be resumed after event `after` (ARGV[2]), given its index field read and
 * `tail`, its list's last entries (at least its newest): false for a stream unknown, a number it
 * never had, from before an event trimmed, or a list expired (its newest event is missing).
 */
const RESUMABLE = `
local function resumable(after, tail)
  if not kept or after > top or after < floor then return false end
  if last <= after then return true end
  return #tail > 0 and tonumber(string.match(tail[#tail], '^%d+')) == last
end
`;

/**
 * A stream resumed from a number beyond its newest: answers that newest number (an integer, where
 * the scripts otherwise answer a list or nil), so the caller can wait for the holder's append.
 */
const AHEAD = `if kept and after > top then return top end`;

/**
 * The entries of a stream after event ARGV[2] (KEYS the index and the list, ARGV[1] the stream
 * id), oldest first; nil when the stream cannot be resumed from there. Message numbers only grow,
 * so the entries after event `after` are among the last `last - after`. The newest number alone
 * when `after` is beyond it ({@link AHEAD}).
 */
const REPLAY = new Script(`${READ_INDEX}${RESUMABLE}
local after = tonumber(ARGV[2])
${AHEAD}
local tail = {}
if kept and last > after then tail = redis.call('LRANGE', KEYS[2], after - last, -1) end
if not resumable(after, tail) then return false end
local first = #tail + 1
while first > 1 and tonumber(string.match(tail[first - 1], '^%d+')) > after do first = first - 1 end
local replay = {}
for i = first, #tail do replay[#replay + 1] = tail[i] end
return replay`);

/**
 * Claims a stream for instance ARGV[3] (KEYS the index and the list, ARGV[1] the stream id): from
 * now on only it appends there ({@link APPEND}). Answers, read in the same step, the stream's
 * newest number (first element), then each entry kept — whole after event ARGV[2], `{seq}\n{key}`
 * up to it (only the keys of those are wanted); nil, claiming nothing, when the stream cannot be
 * resumed from there; the newest number alone when ARGV[2] is beyond it ({@link AHEAD}).
 */
const CLAIM = new Script(`${READ_INDEX}${RESUMABLE}
local after = tonumber(ARGV[2])
${AHEAD}
local all = {}
if kept and last > 0 then all = redis.call('LRANGE', KEYS[2], 0, -1) end
if not resumable(after, all) then return false end
owner = ARGV[3]
${WRITE_INDEX}
local answer = { tostring(top) }
for _, entry in ipairs(all) do
  local seq, rest = string.match(entry, '^(%d+)\\n(.*)$')
  if tonumber(seq) > after then answer[#answer + 1] = entry
  else answer[#answer + 1] = seq .. '\\n' .. string.match(rest, '^[^\\n]*') end
end
return answer`);

/**
 * Forgets every stream of a session: KEYS[1] the index, ARGV[1] what its lists' names start with.
 * The lists are named from the index's fields; they share its hash tag, so on a Redis Cluster they
 * are in its slot, on the node that runs the script.
 */
const CLEAR = new Script(`
local streams = redis.call('HKEYS', KEYS[1])
for _, stream in ipairs(streams) do redis.call('DEL', ARGV[1] .. stream) end
redis.call('DEL', KEYS[1])
return #streams`);

/** One kept entry, `{seq}\n{key}\n{message}`, read. */
function readEntry(entry: string): { seq: number; key: string; message: string } {
  const first = entry.indexOf('\n');
  const second = entry.indexOf('\n', first + 1);
  // A claim answers `{seq}\n{key}` alone for the entries up to where the stream is resumed.
  if (second < 0) return { seq: Number(entry.slice(0, first)), key: entry.slice(first + 1), message: '' };
  return { seq: Number(entry.slice(0, first)), key: entry.slice(first + 1, second), message: entry.slice(second + 1) };
}

/**
 * How long a resumption from an event beyond the stream's newest waits for it to be kept. The
 * instance holding a stream writes each event to its client before its append reaches Redis (the
 * append goes out on the client's next write, after this turn of its event loop): a client that
 * resumes at once on another instance may name an event Redis does not have yet, and on a loaded
 * machine for tens of milliseconds. A number the stream never reaches is refused once this is over.
 */
export const AHEAD_WAIT_MS = 1_000;

/**
 * Runs a replay or a claim until the stream has the event it resumes from, or {@link AHEAD_WAIT_MS}
 * passed: waits 5, 10, 20 … ms between tries while it answers a number ({@link AHEAD}).
 */
async function kept<T>(read: () => Promise<T | number | null>): Promise<T | null> {
  const deadline = performance.now() + AHEAD_WAIT_MS;
  for (let pause = 5; ; pause *= 2) {
    const answer = await read();
    if (typeof answer !== 'number') return answer;
    const left = deadline - performance.now();
    if (left <= 0) return null;
    await sleep(Math.min(pause, left));
  }
}

/** The events of one session's streams, in Redis. */
export class RedisEventStore implements EventStore {
  private readonly maxLength: string;
  private readonly maxAge: string;
  /** The session's index of streams. */
  private readonly index: string;

  /**
   * @param instance the instance this store writes for (its cluster bus's id): once another
   *   instance claimed a stream ({@link RedisEventStore.claim}), what this one appends to it is dropped.
   */
  constructor(
    private readonly redis: RedisConnection,
    private readonly sessionId: string,
    window: EventWindow = {},
    private readonly instance = '',
  ) {
    this.maxLength = String(window.maxPerStream ?? EVENT_WINDOW_DEFAULTS.maxPerStream);
    this.maxAge = String(window.maxAgeMs ?? EVENT_WINDOW_DEFAULTS.maxAgeMs);
    this.index = redis.key('events', sessionId);
  }

  private list(streamId: string): string {
    return `${this.index}:${streamId}`;
  }

  async append(streamId: string, seq: number, message?: JsonRpcMessage | JsonRpcMessage[], key?: string): Promise<void> {
    const args = [streamId, String(seq), this.maxAge, this.maxLength, this.instance];
    // JSON never holds a raw newline, and keys are ours ([0-9a-z.]): the entry splits back unambiguously.
    if (message !== undefined) args.push(`${seq}\n${key ?? ''}\n${JSON.stringify(message)}`);
    await this.redis.run(APPEND, [this.index, this.list(streamId)], args, true);
  }

  async replayAfter(streamId: string, seq: number): Promise<StoredEvent[] | undefined> {
    if (!Number.isSafeInteger(seq) || seq < 0) return undefined;
    const entries = await kept(() => this.redis.run(REPLAY, [this.index, this.list(streamId)], [streamId, String(seq)]) as Promise<string[] | number | null>);
    if (!entries) return undefined;
    return entries.map((entry) => {
      const { seq: number, message } = readEntry(entry);
      return { seq: number, message: JSON.parse(message) as JsonRpcMessage | JsonRpcMessage[] };
    });
  }

  /** Makes this instance the only writer of `streamId` and reads it after `seq` in the same step (see `EventStore.claim`). */
  async claim(streamId: string, seq: number): Promise<ClaimedStream | undefined> {
    if (!Number.isSafeInteger(seq) || seq < 0) return undefined;
    const answer = await kept(() => this.redis.run(CLAIM, [this.index, this.list(streamId)], [streamId, String(seq), this.instance], true) as Promise<string[] | number | null>);
    if (!answer) return undefined;
    const events: StoredEvent[] = [];
    const keys = new Set<string>();
    for (const entry of answer.slice(1)) {
      const { seq: number, key, message } = readEntry(entry);
      if (key !== '') keys.add(key);
      if (number > seq) events.push({ seq: number, message: JSON.parse(message) as JsonRpcMessage | JsonRpcMessage[] });
    }
    return { events, top: Number(answer[0]), keys };
  }

  async forget(streamId: string): Promise<void> {
    await Promise.all([this.redis.send(['HDEL', this.index, streamId]), this.redis.send(['DEL', this.list(streamId)])]);
  }

  /** Forgets every stream of the session, whichever instance wrote it (the session ended). */
  async clear(): Promise<void> {
    await this.redis.run(CLEAR, [this.index], [`${this.index}:`]);
  }
}
