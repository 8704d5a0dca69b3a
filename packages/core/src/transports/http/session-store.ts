/**
 * Where Streamable HTTP sessions are kept. The in-memory store is the default; a shared store
 * (Redis, in `@hermes-mcp/redis`) implements the same interface.
 */

/** A place to keep sessions by id. */
export interface SessionStore<S> {
  /** The session of that id, if it exists. */
  get(id: string): S | undefined;
  /** Keeps a session. */
  set(id: string, session: S): void;
  /** Forgets a session; true when it existed. */
  delete(id: string): boolean;
  /** How many sessions are kept. */
  readonly size: number;
  /** Every session kept. */
  values(): IterableIterator<S>;
}

/** Sessions in a Map, in this process. */
export class InMemorySessionStore<S> implements SessionStore<S> {
  private readonly sessions = new Map<string, S>();

  get(id: string): S | undefined {
    return this.sessions.get(id);
  }

  set(id: string, session: S): void {
    this.sessions.set(id, session);
  }

  delete(id: string): boolean {
    return this.sessions.delete(id);
  }

  get size(): number {
    return this.sessions.size;
  }

  values(): IterableIterator<S> {
    return this.sessions.values();
  }
}
