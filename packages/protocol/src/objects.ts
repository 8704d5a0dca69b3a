/**
 * Plain objects made fast on every Node the project supports. V8 11.3 (Node 20) copies an object
 * literal that starts with a spread (`{ ...a, k: v }`, `{ ...a, ...b }`) through a path that then
 * adds each further member slowly — about 1 µs for the first, measured on the bench machine, against
 * 60 ns for the same copy made key by key — and the result serialises slower too. Hot paths merge
 * with {@link merge} instead (docs/performance.md, "What the hot paths do").
 */

/**
 * Copies `source`'s own enumerable string keys onto `target`, as a spread would: a `__proto__` key
 * is copied as data (a spread never calls setters), so a merged client object cannot change the
 * copy's prototype. Returns `target`.
 */
export function copyInto<T extends object>(target: T, source: object | null | undefined): T {
  if (source === null || source === undefined) return target;
  const into = target as Record<string, unknown>;
  const from = source as Record<string, unknown>;
  for (const key of Object.keys(from)) {
    if (key === '__proto__') Object.defineProperty(into, key, { value: from[key], enumerable: true, writable: true, configurable: true });
    else into[key] = from[key];
  }
  return target;
}

/** What `{ ...a, ...b }` makes (later sources win; undefined and null add nothing), built key by key. */
export function merge<A extends object, B extends object | undefined>(a: A | undefined, b: B): A & NonNullable<B>;
/** What `{ ...a, ...b, ...c }` makes, built key by key. */
export function merge<A extends object, B extends object | undefined, C extends object | undefined>(a: A | undefined, b: B, c: C): A & NonNullable<B> & NonNullable<C>;
export function merge(a: object | undefined, b: object | undefined, c?: object): object {
  const out = copyInto({}, a);
  copyInto(out, b);
  return c === undefined ? out : copyInto(out, c);
}
