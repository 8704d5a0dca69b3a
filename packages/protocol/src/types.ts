/**
 * MCP message types, 2024-11-05 … 2025-11-25.
 *
 * One set of types covers every legacy revision: a field that only some revisions have is
 * optional here and documented with the revision that introduced it. The engine removes what the
 * negotiated revision lacks before anything is sent (see `@hermes-mcp/core`'s result shaping).
 */
import type { LegacyProtocolVersion, ProtocolVersion } from './revisions';

/** Free-form metadata (`_meta`); keys follow MCP's reverse-DNS naming rules. */
export type Meta = Record<string, unknown>;

/** An icon for display (2025-11-25). */
export interface Icon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: 'light' | 'dark';
}

/** Name and version of a client or server. */
export interface Implementation {
  /** The name, as programs know it (`serverInfo.name`, `clientInfo.name`). */
  name: string;
  /** The version. */
  version: string;
  /** Human-readable name (2025-06-18+). */
  title?: string;
  /** What it does (2025-11-25+). */
  description?: string;
  /** Icons for display (2025-11-25+). */
  icons?: Icon[];
  /** Its website (2025-11-25+). */
  websiteUrl?: string;
}

/** What a client can do. */
export interface ClientCapabilities {
  experimental?: Record<string, object>;
  roots?: { listChanged?: boolean };
  sampling?: { context?: object; tools?: object };
  elicitation?: { form?: object; url?: object };
  [key: string]: unknown;
}

/** What a server can do. */
export interface ServerCapabilities {
  experimental?: Record<string, object>;
  logging?: object;
  completions?: object;
  prompts?: { listChanged?: boolean };
  resources?: { subscribe?: boolean; listChanged?: boolean };
  tools?: { listChanged?: boolean };
  [key: string]: unknown;
}

/** Params of `initialize`. */
export interface InitializeRequestParams {
  protocolVersion: string;
  capabilities: ClientCapabilities;
  clientInfo: Implementation;
  _meta?: Meta;
}

/** Result of `initialize`. */
export interface InitializeResult {
  protocolVersion: LegacyProtocolVersion;
  capabilities: ServerCapabilities;
  serverInfo: Implementation;
  instructions?: string;
  [key: string]: unknown;
}

/** Who a piece of content is for, and how much it matters. */
export interface Annotations {
  audience?: Array<'user' | 'assistant'>;
  priority?: number;
  /** 2025-06-18. */
  lastModified?: string;
}

/** Text content. */
export interface TextContent {
  type: 'text';
  text: string;
  annotations?: Annotations;
  _meta?: Meta;
}

/** Base64 image content. */
export interface ImageContent {
  type: 'image';
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: Meta;
}

/** Base64 audio content (2025-03-26). */
export interface AudioContent {
  type: 'audio';
  data: string;
  mimeType: string;
  annotations?: Annotations;
  _meta?: Meta;
}

/** The contents of a text resource. */
export interface TextResourceContents {
  uri: string;
  mimeType?: string;
  text: string;
  _meta?: Meta;
}

/** The contents of a binary resource (base64). */
export interface BlobResourceContents {
  uri: string;
  mimeType?: string;
  blob: string;
  _meta?: Meta;
}

/** Either kind of resource contents. */
export type ResourceContents = TextResourceContents | BlobResourceContents;

/** A resource embedded in a result. */
export interface EmbeddedResource {
  type: 'resource';
  resource: ResourceContents;
  annotations?: Annotations;
  _meta?: Meta;
}

/** A link to a resource the client may read (2025-06-18): a {@link Resource} as content. */
export interface ResourceLink extends Resource {
  type: 'resource_link';
}

/** Any content block a tool result may hold. */
export type ContentBlock = TextContent | ImageContent | AudioContent | EmbeddedResource | ResourceLink;

/** Hints about a tool's behaviour (2025-03-26). */
export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** A JSON Schema object (the subset of shape MCP requires: an object schema). */
export interface JsonSchemaObject {
  type: 'object';
  properties?: Record<string, object>;
  required?: string[];
  [key: string]: unknown;
}

/** A tool definition as listed by `tools/list`. */
export interface Tool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JsonSchemaObject;
  outputSchema?: JsonSchemaObject;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  _meta?: Meta;
}

/** Result of `tools/call`. */
export interface CallToolResult {
  content: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Meta;
  [key: string]: unknown;
}

/** A resource as listed by `resources/list`. */
export interface Resource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: Meta;
}

/** A resource template as listed by `resources/templates/list`. */
export interface ResourceTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: Meta;
}

/** Result of `resources/read`. */
export interface ReadResourceResult {
  contents: ResourceContents[];
  _meta?: Meta;
  [key: string]: unknown;
}

/** An argument a prompt accepts. */
export interface PromptArgument {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
}

/** A prompt as listed by `prompts/list`. */
export interface Prompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
  icons?: Icon[];
  _meta?: Meta;
}

/** One message of a prompt. */
export interface PromptMessage {
  role: 'user' | 'assistant';
  content: ContentBlock;
}

/** Result of `prompts/get`. */
export interface GetPromptResult {
  description?: string;
  messages: PromptMessage[];
  _meta?: Meta;
  [key: string]: unknown;
}

/** A page of a list result. */
export interface Paginated {
  nextCursor?: string;
  _meta?: Meta;
  [key: string]: unknown;
}

/** Result of `tools/list`. */
export interface ListToolsResult extends Paginated {
  tools: Tool[];
}

/** Result of `resources/list`. */
export interface ListResourcesResult extends Paginated {
  resources: Resource[];
}

/** Result of `resources/templates/list`. */
export interface ListResourceTemplatesResult extends Paginated {
  resourceTemplates: ResourceTemplate[];
}

/** Result of `prompts/list`. */
export interface ListPromptsResult extends Paginated {
  prompts: Prompt[];
}

/** Syslog severities used by MCP logging, lowest first. */
export const LOGGING_LEVELS = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'] as const;

/** One MCP logging level. */
export type LoggingLevel = (typeof LOGGING_LEVELS)[number];

/** Protocol revision as seen by a message (re-exported for convenience). */
export type { ProtocolVersion };

/** A root the client exposes (`roots/list`). */
export interface Root {
  uri: string;
  name?: string;
  _meta?: Meta;
}

/** Content a sampling message may hold (2025-11-25 adds tool use and tool results). */
export type SamplingContent = TextContent | ImageContent | AudioContent | { type: 'tool_use' | 'tool_result'; [key: string]: unknown };

/** One message of a sampling conversation. */
export interface SamplingMessage {
  role: 'user' | 'assistant';
  content: SamplingContent | SamplingContent[];
  _meta?: Meta;
}

/** Params of `sampling/createMessage` (server→client). */
export interface CreateMessageRequestParams {
  messages: SamplingMessage[];
  maxTokens: number;
  systemPrompt?: string;
  temperature?: number;
  stopSequences?: string[];
  includeContext?: 'none' | 'thisServer' | 'allServers';
  modelPreferences?: {
    hints?: Array<{ name?: string }>;
    costPriority?: number;
    speedPriority?: number;
    intelligencePriority?: number;
  };
  metadata?: Record<string, unknown>;
  /** 2025-11-25: tools the model may call; needs the client's `sampling.tools` capability. */
  tools?: Tool[];
  /** 2025-11-25. */
  toolChoice?: { mode?: 'auto' | 'required' | 'none' };
  _meta?: Meta;
  [key: string]: unknown;
}

/** Result of `sampling/createMessage`. */
export interface CreateMessageResult {
  role: 'user' | 'assistant';
  content: SamplingContent | SamplingContent[];
  model: string;
  stopReason?: string;
  _meta?: Meta;
  [key: string]: unknown;
}

/** What the user did with an elicitation (`elicitation/create`, 2025-06-18). */
export type ElicitAction = 'accept' | 'decline' | 'cancel';

/** One file of a skill, as its entry lists it (SEP-2640): what a host verifies the bytes it reads against. */
export interface SkillResource {
  /** The file's URI, inside the skill's directory (or the SKILL.md itself). */
  uri: string;
  /** `sha256:` and 64 lowercase hex digits: the SHA-256 of the raw bytes served. */
  digest: string;
  /** The byte length of those same bytes. */
  size: number;
  [key: string]: unknown;
}

/** A SKILL.md's frontmatter, as parsed from its YAML: `name` and `description`, and every other field it has. */
export interface SkillFrontmatter {
  name: string;
  description: string;
  [key: string]: unknown;
}

/** A skill, as `skills/list` and `skills/get` give it (SEP-2640 §Skill Entries). */
export interface Skill {
  /** The URI of its SKILL.md; its last directory segment is `frontmatter.name`. */
  uri: string;
  /** The SKILL.md frontmatter, identical in content to the file's. */
  frontmatter: SkillFrontmatter;
  /** Every file of the skill, SKILL.md included, or `"dynamic"` for generated content (no digests). */
  resources: SkillResource[] | 'dynamic';
  _meta?: Meta;
  [key: string]: unknown;
}

/** Result of `skills/list`: a page of skills (2026-07-28 adds `ttlMs`/`cacheScope`). */
export interface ListSkillsResult extends Paginated {
  skills: Skill[];
}

/** Result of `skills/get` (no cursor). */
export interface GetSkillResult {
  skill: Skill;
  _meta?: Meta;
  [key: string]: unknown;
}

/** Result of `resources/directory/read`: the direct children of a directory resource (a directory child has `mimeType: "inode/directory"`). */
export interface ReadResourceDirectoryResult extends Paginated {
  resources: Resource[];
}

/** The server's declaration of the Skills extension: `{}`, or with `directoryRead` when it serves `resources/directory/read`. */
export interface SkillsCapability {
  directoryRead?: boolean;
  [key: string]: unknown;
}

/** Who may see and call a tool of an MCP App: the agent (`model`), the app's view (`app`). */
export type AppVisibility = 'model' | 'app';

/** A tool's `_meta.ui` (MCP Apps): the UI resource it renders in, and who may call it (default both). */
export interface AppToolMeta {
  /** A `ui://…` resource of type `text/html;profile=mcp-app`. */
  resourceUri?: string;
  visibility?: AppVisibility[];
  [key: string]: unknown;
}

/** The domains a view may reach, which the host turns into its Content-Security-Policy; none declared: none allowed. */
export interface AppCsp {
  connectDomains?: string[];
  resourceDomains?: string[];
  frameDomains?: string[];
  baseUriDomains?: string[];
}

/** The browser permissions a view asks for (the iframe's `allow` attribute). */
export interface AppPermissions {
  camera?: object;
  microphone?: object;
  geolocation?: object;
  clipboardWrite?: object;
}

/** A UI resource's `_meta.ui` (MCP Apps), on its list entry and its content (the content's wins). */
export interface AppResourceMeta {
  csp?: AppCsp;
  permissions?: AppPermissions;
  /** A dedicated sandbox origin, in the host's format. */
  domain?: string;
  prefersBorder?: boolean;
  [key: string]: unknown;
}

/** A host's declaration of the MCP Apps extension: the UI MIME types it renders. */
export interface AppsClientCapability {
  mimeTypes: string[];
  [key: string]: unknown;
}
