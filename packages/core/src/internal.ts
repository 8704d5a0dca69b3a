/**
 * @hermes-mcp/core/internal — what the other Hermes packages build on, not what applications or
 * adapters use: the engine's types, the method table and the output accounting. No stability
 * promise beyond the packages of this repository, which move together. Adapters build on
 * `@hermes-mcp/core/adapter` instead, which is covered by semver.
 */
export { DEFAULT_MAX_BUFFERED_BYTES } from './transports/http/sse';
export { principalOf } from './transports/http/sessions';
export type { OutputLimits } from './transports/backpressure';
export type { ClientView, Unread } from './transports/unread';
export { allMethods, methodSpec } from './engine/methods';
export type { MethodSpec } from './engine/methods';
export type { Engine, EngineOptions } from './engine/engine';
export type { Connection, ConnectionOptions } from './engine/connection';
// Remote mounts (@hermes-mcp/gateway): the registry they add to, and local mounts' naming and layering.
export { checkNamespace, checkSeparator, mountHostOf, mountedName, mountedUri, unmountedUri, wrapMounted } from './bootstrap/mount';
export type { MountHost } from './bootstrap/mount';
export { compileUriTemplate } from './bootstrap/uri-template';
// Startup snapshots (@hermes-mcp/client's `hermes-mcp snapshot`): the code the schema cache is kept under.
export { useSnapshotCode } from './schema/schema-cache';
