/**
 * The two ways an HTTP or WebSocket transport is made: `new X({ url, … })`, and the official SDK's
 * `new X(url, { … })` — `url` a string or a `URL` either way. One place reads both.
 */

/**
 * A transport's options from either call: `first` is the options (with `url`), or the URL with the
 * rest of the options in `rest`. Throws a TypeError naming `transport` when there is no URL in
 * either place (a JavaScript caller, or a value typed `any`), rather than failing later on
 * `undefined`.
 */
export function transportOptions<O extends { url: string | URL }>(transport: string, first: string | URL | O, rest?: Omit<O, 'url'>): O {
  const options = typeof first === 'string' || first instanceof URL ? ({ ...rest, url: first } as O) : first;
  const url = typeof options === 'object' && options !== null ? (options as Partial<O>).url : undefined;
  if (typeof url === 'string' || url instanceof URL) return options;
  const got =
    typeof options !== 'object' || options === null
      ? options === undefined
        ? 'nothing'
        : `a ${typeof options}`
      : `options whose url is ${url === undefined ? 'missing' : `a ${typeof url}`}`;
  throw new TypeError(`new ${transport}(url, options?) or new ${transport}({ url, ...options }) needs the server's URL, a string or a URL; got ${got}`);
}
