/**
 * @hermes-mcp/core — decorator-driven MCP servers.
 *
 * @example
 * \@McpServer({ name: 'calc', version: '1.0.0' })
 * class Calc {
 *   \@Tool({ description: 'Add two numbers' }) add(input: AddInput) { return input.a + input.b; }
 * }
 * await McpFactory.create(Calc).listen();
 */
import 'reflect-metadata';
import type * as Introspection from './auth/introspection';
import type * as Jwt from './auth/jwt';
import type * as ResourceServer from './auth/resource-server';
import type * as NodeHttp from './transports/http/node';
import type * as Web from './transports/http/web';
import type * as WebSocket from './transports/websocket';

export { McpServer } from './decorators/mcp-server.decorator';
export { Tool } from './decorators/tool.decorator';
export { Resource } from './decorators/resource.decorator';
export { AppResource } from './decorators/app-resource.decorator';
export {
  APPS_EXTENSION,
  APP_MIME_TYPE,
  type AppCsp,
  type AppPermissions,
  type AppToolMeta,
  type AppVisibility,
  SKILLS_EXTENSION,
  type SkillResource,
  McpError,
  ErrorCode,
  type JsonSchemaObject,
} from '@hermes-mcp/protocol';
export { Prompt } from './decorators/prompt.decorator';
export { Ctx } from './decorators/ctx.decorator';
export type {
  AppResourceOptions,
  McpServerOptions,
  MountMap,
  PromptOptions,
  ResourceOptions,
  SchemaOptions,
  ToolOptions,
  McpMiddleware,
  Middleware,
  MiddlewareLike,
  DeclaredCapabilities,
  CompleteFn,
  CompletionContext,
  CacheHints,
  TaskStart,
  TaskSupport,
  SkillFiles,
  SkillLimits,
  SkillOptions,
  SkillsOptions,
} from './metadata/options';
export { McpContext, type AskOptions, type AuthInfo, type ElicitResult, type RequestInfo, type SessionInfo, type UrlElicitation, type Listing } from './context/mcp-context';
export { Use } from './decorators/use.decorator';
export { Complete } from './decorators/complete.decorator';
export { EnumTitles } from './decorators/enum-titles.decorator';
export { elicitationSchemaFor, type ElicitationSchema } from './schema/elicitation-schema';
export { type McpHandler, type NotificationContext, isMcpHandler } from './engine/mcp-handler';
export { McpApp, McpFactory, type McpAppOptions, type NotificationListener, type RegisteredHandle, type RuntimeHandler, type AppSkills } from './bootstrap/factory';
export { isolatedContainer, type Constructor, type DependencyContainer } from './container';
export type { ServingOptions } from './engine/engine';
export type { NotificationEvent, RequestTrace, ServerRequestTrace, SessionEvent } from './diagnostics';
export { HttpError } from './transports/http/http-error';
export type { ProtectedResourceMetadata, ResourceServerOptions, TokenVerifier } from './auth/resource-server';
export type { DpopOptions } from './auth/dpop';
export { InMemoryReplayStore, type ReplayStore } from './stores/replay-store';
export type { JwtVerifierOptions } from './auth/jwt';
export type { IntrospectionVerifierOptions } from './auth/introspection';
export { RequireScopes } from './decorators/require-scopes.decorator';
export { hasScopes } from './auth/scopes';
export type { HttpEndpointOptions } from './transports/http/endpoint';
export type { HttpSession } from './transports/http/sessions';
export type { HttpRequest } from './transports/http/exchange';
export type { WebSocketLike, WebSocketTransportOptions } from './transports/websocket';
export type { WebHandler, WebHandlerOptions } from './transports/http/web';
export type { OriginPolicy } from './transports/http/origin';
export { InMemorySessionStore, type SessionChange, type SessionRecord, type SessionStore } from './stores/session-store';
export { InMemoryEventStore, type ClaimedStream, type EventStore, type StoredEvent } from './stores/event-store';
export { InMemoryTaskStore, type TaskInputRequest, type TaskRecord, type TaskStore, type TaskStatus } from './stores/task-store';
export type { Awaitable } from './stores/awaitable';
export type { Cluster, ClusterBus, ClusterMessage, SessionMessage } from './stores/cluster';
export {
  checkParamHeaders,
  checkStandardHeaders,
  decodeHeaderValue,
  headerParamsOf,
  validateHeaderDeclarations,
  type HeaderParam,
  type HeaderProblem,
  type HeadersRecord,
} from './engine/modern-headers';
export { TASKS_EXTENSION, type TaskOptions } from './engine/tasks';
export { Skill } from './decorators/skill.decorator';
export type { SkillsReload } from './skills/host';
export { StdioTransport, DEFAULT_MAX_MESSAGE_BYTES, type StdioTransportOptions } from './transports/stdio.transport';
export { ERROR_CATALOG, HermesError, ToolError, type HermesErrorCode } from './errors';
export { interopStatus, type InteropStatus } from './interop/report';
export { audio, embedded, image, resourceLink, text } from './results/content';
export { REDACTED_LOG_PATHS, createLogger, type Logger, type LoggerOptions } from './logger';
export { Registry, type ListKind, type Page, type PromptDefinition, type ResourceDefinition, type ResourceTemplateDefinition, type ToolDefinition } from './bootstrap/registry';
export { compileUriTemplate, type UriTemplate } from './bootstrap/uri-template';
export { JSON_SCHEMA_2020_12, buildObjectSchema, emptyObjectSchema, promptArgumentsFor, type NestedSchemas, type ObjectSchemaOptions } from './schema/schema-builder';
export { Description, JSONSchema } from './decorators/description.decorator';
export { McpHeader } from './decorators/mcp-header.decorator';
export { formatIssues, validateInput, validateInputAsync, type ValidateOptions, type ValidationIssue, type ValidationResult } from './validation/validator';

// What serves HTTP and WebSocket, and the OAuth resource server: loaded the first time one of these
// is read, not with the package, so that a stdio server starts without their 30 modules. Each is
// an export like any other (`import { createWebHandler } from '@hermes-mcp/core'` in CommonJS and
// ES modules alike: the names are declared below, and Node finds them in the compiled file).

/** Thrown by a {@link TokenVerifier} for a token it refuses: 401 with `error="invalid_token"` (see auth/resource-server). */
export let InvalidTokenError: typeof ResourceServer.InvalidTokenError;
/** Thrown by a {@link TokenVerifier} for a token it refuses. */
export type InvalidTokenError = ResourceServer.InvalidTokenError;
/** A `WWW-Authenticate: Bearer …` challenge from its parameters (see auth/resource-server). */
export let bearerChallenge: typeof ResourceServer.bearerChallenge;
/** Where the Protected Resource Metadata of `resource` is served (RFC 9728; see auth/resource-server). */
export let protectedResourceMetadataUrl: typeof ResourceServer.protectedResourceMetadataUrl;
/** A {@link TokenVerifier} of JWT access tokens against a JWKS (see auth/jwt). */
export let jwtVerifier: typeof Jwt.jwtVerifier;
/** A {@link TokenVerifier} that asks the authorization server (RFC 7662 introspection; see auth/introspection). */
export let introspectionVerifier: typeof Introspection.introspectionVerifier;
/** A Node `http` listener from a Web-standard handler (see transports/http/node). */
export let toNodeListener: typeof NodeHttp.toNodeListener;
/** The WebSocket subprotocol of MCP: `mcp` (see transports/websocket). */
export let MCP_SUBPROTOCOL: typeof WebSocket.MCP_SUBPROTOCOL;
/** The close codes the WebSocket transport uses (see transports/websocket). */
export let WS_CLOSE: typeof WebSocket.WS_CLOSE;
/** MCP over one WebSocket, one message per text frame (see transports/websocket). */
export let WebSocketTransport: typeof WebSocket.WebSocketTransport;
/** MCP over one WebSocket, one message per text frame. */
export type WebSocketTransport = WebSocket.WebSocketTransport;
/** The Web-standard handler: `(request: Request) => Promise<Response>` (see transports/http/web). */
export let createWebHandler: typeof Web.createWebHandler;

/* eslint-disable @typescript-eslint/no-require-imports */
lazyExports({
  InvalidTokenError: () => (require('./auth/resource-server') as typeof ResourceServer).InvalidTokenError,
  bearerChallenge: () => (require('./auth/resource-server') as typeof ResourceServer).bearerChallenge,
  protectedResourceMetadataUrl: () => (require('./auth/resource-server') as typeof ResourceServer).protectedResourceMetadataUrl,
  jwtVerifier: () => (require('./auth/jwt') as typeof Jwt).jwtVerifier,
  introspectionVerifier: () => (require('./auth/introspection') as typeof Introspection).introspectionVerifier,
  toNodeListener: () => (require('./transports/http/node') as typeof NodeHttp).toNodeListener,
  MCP_SUBPROTOCOL: () => (require('./transports/websocket') as typeof WebSocket).MCP_SUBPROTOCOL,
  WS_CLOSE: () => (require('./transports/websocket') as typeof WebSocket).WS_CLOSE,
  WebSocketTransport: () => (require('./transports/websocket') as typeof WebSocket).WebSocketTransport,
  createWebHandler: () => (require('./transports/http/web') as typeof Web).createWebHandler,
});
/* eslint-enable @typescript-eslint/no-require-imports */

/**
 * Makes each of `loaders` an export of this module whose value is loaded the first time it is read
 * (then kept). The names are declared above with `export let`, so the compiled file assigns each
 * (`exports.name = void 0`), which is how Node's ES module loader finds a CommonJS module's names.
 */
function lazyExports(loaders: Record<string, () => unknown>): void {
  const target = module.exports as Record<string, unknown>;
  for (const [name, load] of Object.entries(loaders)) {
    Object.defineProperty(target, name, {
      enumerable: true,
      configurable: true,
      get() {
        const value = load();
        Object.defineProperty(target, name, { enumerable: true, value, writable: false });
        return value;
      },
    });
  }
}
