/**
 * When a whole HTTP answer is written: together with the other answers that became ready in the
 * same turn of the event loop, at the end of its I/O phase, rather than one by one between the
 * requests still being read.
 *
 * Why: under load, one turn reads many requests. Written as each is handled, every answer is a
 * socket write of its own squeezed between two request reads; written at the end of the turn,
 * they go out back to back and the next turn finds more requests waiting on more sockets. The
 * bench measured 13–26 % less server CPU per JSON `tools/call` at 10 and 100 connections
 * (docs/performance.md, "Answers leave together"). A lone request pays nothing measurable: its
 * turn ends right after it.
 *
 * A burst must not make the first answer wait for the last request read: once
 * {@link MAX_WAITING} answers wait, they leave as soon as the microtasks of the request being
 * handled have run (so a tool that finished within them is part of its own answer).
 */

/** Most answers that wait for the end of a turn; past it, they leave at once. */
export const MAX_WAITING = 16;

/**
 * Longest legacy JSON answer (in characters) that waits for its turn. Larger ones are written at
 * once: their write costs more than a turn saves, and a legacy answer is checked against its
 * client's unread limit when it is made, while what a client has not read is counted from the
 * write (a large answer waiting uncounted would let the next ones past the limit). A 2026-07-28
 * answer is made, checked and counted after its turn, so it may wait whatever its size.
 */
export const TURN_MAX_CHARS = 16 * 1024;

/** The end of the event loop's I/O phase (`setImmediate`); a zero timeout where there is none. */
const atTurnEnd: (run: () => void) => void = typeof setImmediate === 'function' ? (run) => void setImmediate(run) : (run) => void setTimeout(run, 0);

/** Once the microtasks now queued, and those they queue, have run (Node's next tick after them). */
const afterMicrotasks: (run: () => void) => void =
  typeof process === 'object' && typeof process?.nextTick === 'function' ? (run) => queueMicrotask(() => process.nextTick(run)) : atTurnEnd;

/** The answers waiting: one promise for all of them, released together. */
let current: Promise<void> | undefined;
let release: () => void = () => undefined;
let waiting = 0;
/** True while an end-of-turn release is scheduled. */
let scheduled = false;

/** Ends the group waiting now (the next answer starts another) and gives its release. */
function endGroup(): () => void {
  const run = release;
  current = undefined;
  waiting = 0;
  return run;
}

function atEndOfTurn(): void {
  scheduled = false;
  if (current) endGroup()();
}

/**
 * Resolves when an answer ready now may be written: at the end of this turn's I/O phase, with
 * every other answer waiting for it, or sooner once {@link MAX_WAITING} wait. For the Hermes packages.
 */
export function answerTurn(): Promise<void> {
  const turn = (current ??= new Promise<void>((resolve) => (release = resolve)));
  if (++waiting === MAX_WAITING) afterMicrotasks(endGroup());
  else if (!scheduled) {
    scheduled = true;
    atTurnEnd(atEndOfTurn);
  }
  return turn;
}
