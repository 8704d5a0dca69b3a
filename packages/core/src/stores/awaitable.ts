/** A value, or a promise of it: what store methods return (defined in the protocol package). */
export type { Awaitable } from '@hermes-mcp/protocol';
