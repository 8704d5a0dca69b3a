/**
 * Whole lists from paginated ones: every item, page after page, as an async iterable that is also
 * awaitable to an array (`McpClient.listAllTools()` and its kind).
 */
import { ErrorCode, McpError } from '@hermes-mcp/protocol';
import type { Listing } from './client-api';

/** One page of a list: its items and the cursor of the next, if any. */
export type PageReader<T> = (cursor: string | undefined) => Promise<{ items: T[]; nextCursor?: string }>;

/** Every item of the list `page` reads, awaitable to an array and iterable (each iteration walks the list anew). */
export function listing<T>(method: string, page: PageReader<T>): Listing<T> {
  const items = () => walk(method, page);
  let collected: Promise<T[]> | undefined;
  return {
    [Symbol.asyncIterator]: () => items(),
    then: (onfulfilled, onrejected) => (collected ??= collect(items())).then(onfulfilled, onrejected),
  };
}

/** Every item of a list, page after page; stops at a cursor seen before (a server that loops). */
async function* walk<T>(method: string, page: PageReader<T>): AsyncGenerator<T> {
  const seen = new Set<string>();
  let cursor: string | undefined;
  do {
    const read = await page(cursor);
    yield* read.items;
    cursor = read.nextCursor;
    if (cursor !== undefined && seen.has(cursor)) throw new McpError(ErrorCode.InternalError, `${method}: the server sent the cursor "${cursor}" twice`);
    if (cursor !== undefined) seen.add(cursor);
  } while (cursor !== undefined);
}

/** Every item of `items`, in an array. */
async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}
