/**
 * The MCP revisions this project speaks, and what each one has.
 *
 * The engine asks this table rather than comparing version strings, so adding a revision is one
 * row here plus the shaping it needs.
 */

/** Every revision served, oldest first. */
export const PROTOCOL_VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28'] as const;

/** A revision identifier, e.g. `"2025-06-18"`. */
export type ProtocolVersion = (typeof PROTOCOL_VERSIONS)[number];

/** The revisions that use `initialize` and sessions, oldest first. */
export const LEGACY_PROTOCOL_VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;

/** A legacy (initialize-based) revision. */
export type LegacyProtocolVersion = (typeof LEGACY_PROTOCOL_VERSIONS)[number];

/** The revisions of the modern (stateless) era, oldest first (as {@link PROTOCOL_VERSIONS}: the last is the newest). */
export const MODERN_PROTOCOL_VERSIONS = ['2026-07-28'] as const;

/** A modern (stateless) revision. */
export type ModernProtocolVersion = (typeof MODERN_PROTOCOL_VERSIONS)[number];

/** True when `version` is a modern revision this project serves. */
export function isModernProtocolVersion(version: unknown): version is ModernProtocolVersion {
  return isProtocolVersion(version) && REVISIONS[version].era === 'modern';
}

/** The `_meta` keys of the modern era (MCP 2026-07-28). */
export const META_KEYS = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  logLevel: 'io.modelcontextprotocol/logLevel',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
} as const;

/** The newest legacy revision: what `initialize` answers when the client's revision is unknown. */
export const LATEST_LEGACY_VERSION: LegacyProtocolVersion = '2025-11-25';

/** Which era a revision belongs to. */
export type Era = 'legacy' | 'modern';

/** What a revision has, as flags the engine and the result shapers read. */
export interface RevisionFeatures {
  /** The revision string. */
  version: ProtocolVersion;
  /** `legacy` (initialize, sessions) or `modern` (stateless, per-request `_meta`). */
  era: Era;
  /** JSON-RPC batch arrays are allowed (2025-03-26 only). */
  batches: boolean;
  /** Tool annotations (`readOnlyHint`, …). */
  toolAnnotations: boolean;
  /** Audio content. */
  audioContent: boolean;
  /** `completion/complete` and the `completions` capability. */
  completions: boolean;
  /** `message` on progress notifications. */
  progressMessage: boolean;
  /** `title` on tools, prompts, resources and implementations. */
  titles: boolean;
  /** `outputSchema` and `structuredContent`. */
  structuredOutput: boolean;
  /** `resource_link` content. */
  resourceLinks: boolean;
  /** `_meta` on content, tools, prompts, resources and results. */
  meta: boolean;
  /** `elicitation/create` (server→client). */
  elicitation: boolean;
  /** `icons` on tools, prompts, resources and implementations. */
  icons: boolean;
  /** URL-mode elicitation. */
  urlElicitation: boolean;
  /** `tools` in `sampling/createMessage`. */
  samplingTools: boolean;
  /** SSE priming events: a stream opens with an event id and empty data, so it can be resumed from its start. */
  primingEvents: boolean;
}

const row = (version: ProtocolVersion, since: number): RevisionFeatures => ({
  version,
  era: since >= 4 ? 'modern' : 'legacy',
  batches: since === 1,
  toolAnnotations: since >= 1,
  audioContent: since >= 1,
  completions: since >= 1,
  progressMessage: since >= 1,
  titles: since >= 2,
  structuredOutput: since >= 2,
  resourceLinks: since >= 2,
  meta: since >= 2,
  elicitation: since >= 2,
  icons: since >= 3,
  urlElicitation: since >= 3,
  samplingTools: since >= 3,
  primingEvents: since >= 3,
});

/** Feature flags per revision. */
export const REVISIONS: Readonly<Record<ProtocolVersion, RevisionFeatures>> = Object.freeze({
  '2024-11-05': row('2024-11-05', 0),
  '2025-03-26': row('2025-03-26', 1),
  '2025-06-18': row('2025-06-18', 2),
  '2025-11-25': row('2025-11-25', 3),
  '2026-07-28': row('2026-07-28', 4),
});

/** True when `version` is a revision this project serves. */
export function isProtocolVersion(version: unknown): version is ProtocolVersion {
  return typeof version === 'string' && Object.prototype.hasOwnProperty.call(REVISIONS, version);
}

/** True when `version` is a legacy revision this project serves. */
export function isLegacyProtocolVersion(version: unknown): version is LegacyProtocolVersion {
  return isProtocolVersion(version) && REVISIONS[version].era === 'legacy';
}

/**
 * Version negotiation for `initialize`: the client's revision when we serve it, else the latest
 * legacy revision (the client then decides whether it can go on).
 */
export function negotiateLegacyVersion(requested: unknown): LegacyProtocolVersion {
  return isLegacyProtocolVersion(requested) ? requested : LATEST_LEGACY_VERSION;
}

/** The tasks extension of MCP 2026-07-28, as declared in capabilities' `extensions`. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
