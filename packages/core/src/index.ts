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

export { McpServer } from './decorators/mcp-server.decorator';
export { Tool } from './decorators/tool.decorator';
export { Resource } from './decorators/resource.decorator';
export { Prompt } from './decorators/prompt.decorator';
export { Ctx } from './decorators/ctx.decorator';
export type { McpServerOptions, PromptOptions, ResourceOptions, ToolOptions } from './metadata/options';
export { McpContext } from './context/mcp-context';
export type { AskOptions, AuthInfo, ElicitResult, RequestInfo, SessionInfo, UrlElicitation } from './context/mcp-context';
export { Use } from './decorators/use.decorator';
export type { McpMiddleware, Middleware, MiddlewareLike } from './metadata/options';
export type { Listing } from './context/mcp-context';
export { Complete } from './decorators/complete.decorator';
export type { CompleteFn, CompletionContext } from './metadata/options';
export { EnumTitles } from './decorators/enum-titles.decorator';
export { elicitationSchemaFor } from './schema/elicitation-schema';
export type { ElicitationSchema } from './schema/elicitation-schema';
export type { McpHandler, NotificationContext } from './engine/mcp-handler';
export { isMcpHandler } from './engine/mcp-handler';
export { McpApp, McpFactory } from './bootstrap/factory';
export { isolatedContainer } from './container';
export type { Constructor, DependencyContainer } from './container';
export type { McpAppOptions, NotificationListener, RegisteredHandle, RuntimeHandler } from './bootstrap/factory';
export type { CacheHints } from './metadata/options';
export type { NotificationEvent, RequestTrace, ServerRequestTrace, SessionEvent } from './diagnostics';
export { HttpError } from './transports/http/endpoint';
export { InvalidTokenError, bearerChallenge, protectedResourceMetadataUrl } from './auth/resource-server';
export type { ProtectedResourceMetadata, ResourceServerOptions, TokenVerifier } from './auth/resource-server';
export type { DpopOptions } from './auth/dpop';
export { InMemoryReplayStore } from './stores/replay-store';
export type { ReplayStore } from './stores/replay-store';
export { jwtVerifier } from './auth/jwt';
export type { JwtVerifierOptions } from './auth/jwt';
export { introspectionVerifier } from './auth/introspection';
export type { IntrospectionVerifierOptions } from './auth/introspection';
export { RequireScopes } from './decorators/require-scopes.decorator';
export { hasScopes } from './auth/scopes';
export type { HttpEndpointOptions } from './transports/http/endpoint';
export type { HttpSession } from './transports/http/sessions';
export type { HttpRequest } from './transports/http/exchange';
export { toNodeListener } from './transports/http/node';
export { MCP_SUBPROTOCOL, WS_CLOSE, WebSocketTransport } from './transports/websocket';
export type { WebSocketLike, WebSocketTransportOptions } from './transports/websocket';
export { createWebHandler } from './transports/http/web';
export type { WebHandler, WebHandlerOptions } from './transports/http/web';
export type { OriginPolicy } from './transports/http/origin';
export { InMemorySessionStore } from './stores/session-store';
export type { SessionChange, SessionRecord, SessionStore } from './stores/session-store';
export { InMemoryEventStore } from './stores/event-store';
export type { EventStore, StoredEvent } from './stores/event-store';
export { InMemoryTaskStore } from './stores/task-store';
export type { TaskInputRequest, TaskRecord, TaskStore } from './stores/task-store';
export type { Awaitable } from './stores/awaitable';
export type { Cluster, ClusterBus, ClusterMessage, SessionMessage } from './stores/cluster';
export { checkParamHeaders, checkStandardHeaders, decodeHeaderValue, headerParamsOf, validateHeaderDeclarations } from './engine/modern-headers';
export type { HeaderParam, HeaderProblem, HeadersRecord } from './engine/modern-headers';
export { TASKS_EXTENSION } from './engine/tasks';
export type { TaskOptions } from './engine/tasks';
export type { TaskStart, TaskSupport } from './metadata/options';
export type { TaskStatus } from './stores/task-store';
export type { SkillFiles, SkillLimits, SkillsOptions } from './metadata/options';
export type { AppSkills } from './bootstrap/factory';
export type { SkillsReload } from './skills/host';
export { SKILLS_EXTENSION } from '@hermes-mcp/protocol';
export type { Skill, SkillResource } from '@hermes-mcp/protocol';
export { StdioTransport, DEFAULT_MAX_MESSAGE_BYTES } from './transports/stdio.transport';
export type { StdioTransportOptions } from './transports/stdio.transport';
export { ERROR_CATALOG, HermesError, ToolError } from './errors';
export { interopStatus } from './interop/report';
export type { InteropStatus } from './interop/report';
export type { HermesErrorCode } from './errors';
export { audio, embedded, image, resourceLink, text } from './results/content';
export { REDACTED_LOG_PATHS, createLogger } from './logger';
export type { Logger, LoggerOptions } from './logger';
export { Registry } from './bootstrap/registry';
export type { ListKind, Page, PromptDefinition, ResourceDefinition, ResourceTemplateDefinition, ToolDefinition } from './bootstrap/registry';
export { compileUriTemplate } from './bootstrap/uri-template';
export type { UriTemplate } from './bootstrap/uri-template';
export { JSON_SCHEMA_2020_12, buildObjectSchema, emptyObjectSchema, promptArgumentsFor } from './schema/schema-builder';
export { Description, JSONSchema } from './decorators/description.decorator';
export { McpHeader } from './decorators/mcp-header.decorator';
export { formatIssues, validateInput, validateInputAsync } from './validation/validator';
export type { ValidateOptions, ValidationIssue, ValidationResult } from './validation/validator';
export { McpError, ErrorCode } from '@hermes-mcp/protocol';
export type { JsonSchemaObject } from '@hermes-mcp/protocol';
