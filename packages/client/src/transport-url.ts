/**
 * The two ways an HTTP or WebSocket transport is made: `new X({ url, … })`, and the official SDK's
 * `new X(url, { … })` — `url` a string or a `URL` either way. One place reads both.
 */

/**
 * A transport's options from either call: `first` is the options (with `url`), or the URL with the
 * rest of the options in `rest`.
 */
export function transportOptions<O extends { url: string | URL }>(first: string | URL | O, rest?: Omit<O, 'url'>): O {
  return typeof first === 'string' || first instanceof URL ? ({ ...rest, url: first } as O) : first;
}
