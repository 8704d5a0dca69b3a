/**
 * What the client holds a server to, whoever wrote it: the largest message it reads, how many of
 * the server's requests it handles at once, how many answers it has on their way. One place, so
 * every transport applies the same rule (the README's "Limits" lists them, with their tests).
 */
import { ErrorCode, McpError } from '@hermes-mcp/protocol';

/**
 * The largest message read from a server unless told otherwise (`maxMessageBytes` of each
 * transport): 16 MiB, the most a Hermes server sends in one answer by default (its
 * `maxResultBytes`). A JSON body, an SSE event or a stdio line past it is dropped as it streams in.
 */
export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

/** Handlers of the server's requests (elicitation, sampling, roots) running at once, unless told otherwise. */
export const DEFAULT_MAX_INBOUND_REQUESTS = 64;

/**
 * Answers to the server's requests being POSTed at once on one HTTP connection: past it the
 * client reads no more of what the server sends until one was taken, so a server that floods
 * requests (or never takes the answers) holds the client to this many, not to its whole flood.
 */
export const MAX_ANSWERS_IN_FLIGHT = 16;

/**
 * The value of a limit option (`name`), or `fallback` when it was not given: a positive integer,
 * else a RangeError naming the option and what it got (a limit of 0, or NaN, would refuse
 * everything, and a negative one would pass nothing, without saying why).
 */
export function limitOption(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer (default ${fallback}), not ${String(value)}`);
  return value;
}

/** The `maxMessageBytes` of a transport's options, checked (see {@link limitOption}). */
export function messageLimit(options: { maxMessageBytes?: number }): number {
  return limitOption('maxMessageBytes', options.maxMessageBytes, DEFAULT_MAX_MESSAGE_BYTES);
}

/**
 * -32013: the server sent a message larger than `maxBytes` (`bytes`, when its size was declared).
 * `everyPending`: it could not be told which request it answered, so every pending one fails with it.
 */
export function messageTooLarge(maxBytes: number, bytes?: number, everyPending = false): McpError {
  const size = bytes === undefined ? 'a message larger than' : `a message of ${bytes} bytes, larger than`;
  const fallout = everyPending ? '; it was dropped, and every request pending failed with this error, as the client cannot tell which one it answered' : '';
  return new McpError(
    ErrorCode.ResultTooLarge,
    `Message too large: the server sent ${size} this client's limit of ${maxBytes} bytes (maxMessageBytes)${fallout}. Raise the transport's maxMessageBytes to accept it`,
    bytes === undefined ? { maxMessageBytes: maxBytes } : { maxMessageBytes: maxBytes, bytes },
  );
}

/**
 * The answers to the server's requests on their way on one HTTP transport: the streams they came
 * on read no further while {@link MAX_ANSWERS_IN_FLIGHT} are (the server's writes back up on its
 * side, not here).
 */
export class AnswersInFlight {
  private count = 0;
  private waiting?: { promise: Promise<void>; resolve: () => void } = undefined;

  /** One more answer is being sent. */
  add(): void {
    this.count++;
  }

  /** One answer was taken by the server (or failed): a stream waiting for room reads on. */
  done(): void {
    if (--this.count >= MAX_ANSWERS_IN_FLIGHT || this.waiting === undefined) return;
    this.waiting.resolve();
    this.waiting = undefined;
  }

  /** Undefined while there is room (no wait, no promise); else settles once there is. */
  room(): Promise<void> | undefined {
    if (this.count < MAX_ANSWERS_IN_FLIGHT) return undefined;
    if (this.waiting === undefined) {
      let resolve!: () => void;
      const promise = new Promise<void>((settle) => (resolve = settle));
      this.waiting = { promise, resolve };
    }
    return this.waiting.promise;
  }
}
