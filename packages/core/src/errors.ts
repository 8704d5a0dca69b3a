/**
 * The catalog of the framework's own errors: one stable code each, a message that says how to fix
 * it. docs/errors.md lists the same codes; a test keeps the two in sync.
 *
 * These are local errors (bootstrap, misuse). What travels to a client is an `McpError` (numeric
 * JSON-RPC code) or a tool result with `isError: true`.
 */

/** Every stable error code of the framework, with a one-line meaning. */
export const ERROR_CATALOG = {
  HERMES_NOT_A_SERVER: 'The class given to McpFactory.create has no @McpServer decorator and is not an McpHandler.',
  HERMES_DUPLICATE_NAME: 'Two tools, prompts, resources or resource templates share a name or URI.',
  HERMES_MOUNT_INVALID: 'A `mount` entry is malformed: not an @McpServer class, a bad namespace or separator, a cycle, or something a mount cannot prefix.',
  HERMES_MOUNT_COLLISION: 'Once prefixed, a mounted tool, prompt, resource or template has the name or URI of another one.',
  HERMES_UNRESOLVED_TYPE: 'The class of a handler parameter (tool input, prompt args, resource params) cannot be read.',
  HERMES_CONSTRUCTION_FAILED: 'typedi could not build a server or component class.',
  HERMES_UNRESOLVED_DEPENDENCIES: 'A class Hermes builds takes constructor parameters, but no decorator metadata records their types.',
  HERMES_INVALID_URI_TEMPLATE: 'A @Resource uri is not a valid URI or {var} template.',
  HERMES_INVALID_NAME: 'A tool, prompt or resource name is empty, too long or uses characters MCP does not allow.',
  HERMES_INVALID_OPTIONS: 'Decorator or factory options are malformed.',
  HERMES_ALREADY_LISTENING: 'listen() was called on an app that is already listening.',
  HERMES_OUTPUT_INVALID: 'A tool returned structured content that does not match its output class.',
  HERMES_DUPLICATE_LIBRARY: 'Two copies of reflect-metadata, class-validator, class-transformer or typedi are loaded.',
  HERMES_INTEROP_FALLBACK: 'A library release moved internals Hermes reads; it uses the public API instead (logged at warn, once).',
  HERMES_MISSING_PEER: 'An optional peer dependency that an enabled feature needs is not installed.',
  HERMES_PROMPT_ARGUMENT_TYPE: 'A prompt argument takes no string (e.g. @IsInt() without @Type(() => Number)); MCP prompt arguments are strings.',
  HERMES_DATE_WITHOUT_TYPE: 'An input class has @IsDate() (@MinDate, @MaxDate) without @Type(() => Date): JSON has no dates, so no input could pass.',
  HERMES_SKILL_FOLDER: 'A folder of the `skills` option does not exist or is not a directory.',
  HERMES_SKILL_INVALID: "A skill's SKILL.md breaks a rule: its frontmatter, name, description or metadata (the skill is not served).",
  HERMES_SKILL_UNSAFE: 'A skill folder holds a symlink, a special file, a name with no URI or a file over `limits.fileBytes` (the skill is not served).',
  HERMES_SKILL_TOO_LARGE: 'A skill has more files than `limits.files` or more bytes than `limits.bytes` (the skill is not served).',
  HERMES_SKILL_DUPLICATE: 'Two skills have the same URI.',
  HERMES_SKILL_CHANGED: 'A skill file changed on disk since the skills were loaded; its reads fail (-32603) until `app.skills.reload()`.',
  HERMES_APP_INVALID: "An MCP App is declared wrong: a tool's ui.resourceUri names no @AppResource, or ui or @AppResource settings are malformed.",
  HERMES_REDIS_UNAVAILABLE: 'Redis (the cluster of @hermes-mcp/redis) could not be reached, or did not answer in time.',
  HERMES_REDIS_UNREPLICATED: 'A Redis write did not reach the replicas `durability.replicas` of @hermes-mcp/redis asks for within its timeout (logged; the write counts as done).',
} as const;

/** A stable code from {@link ERROR_CATALOG}. */
export type HermesErrorCode = keyof typeof ERROR_CATALOG;

/**
 * An error of the framework itself (not of a request). `code` is stable and listed in
 * docs/errors.md; the message names what is wrong and how to fix it.
 */
export class HermesError extends Error {
  /** The stable code, e.g. `HERMES_DUPLICATE_NAME`. */
  readonly code: HermesErrorCode;

  constructor(code: HermesErrorCode, message: string, options?: { cause?: unknown }) {
    super(`${code}: ${message}`, options);
    this.name = 'HermesError';
    this.code = code;
  }
}

/**
 * Throw from a tool to report a failure the model should see: the call returns a result with
 * `isError: true` and this message as text, instead of a protocol error.
 *
 * @example
 * if (!found) throw new ToolError(`no city named ${input.city}`);
 */
export class ToolError extends Error {
  /** Optional structured detail, sent as `structuredContent` where the revision has it. */
  readonly details?: Record<string, unknown>;

  constructor(message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = 'ToolError';
    this.details = details;
  }
}
