/** A value, or a promise of it: what store methods return (in memory at once, over a network later). */
export type Awaitable<T> = T | PromiseLike<T>;
