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
export { McpContext } from './context';
export type { AskOptions, AuthInfo, ElicitResult, RequestInfo, SessionInfo, UrlElicitation } from './context';
export { Use } from './middleware';
export type { McpMiddleware, Middleware, MiddlewareLike } from './middleware';
export { Complete } from './completion';
export type { CompleteFn, CompletionContext } from './completion';
export { EnumTitles, elicitationSchemaFor } from './schema/elicitation-schema';
export type { ElicitationSchema } from './schema/elicitation-schema';
export type { McpHandler, NotificationContext } from './handler';
export { isMcpHandler } from './handler';
export { McpApp, McpFactory } from './factory';
export { isolatedContainer } from './container';
export type { Constructor, DependencyContainer } from './container';
export type { McpAppOptions, NotificationListener, RegisteredHandle, RuntimeHandler } from './factory';
export { Engine, Connection } from './engine';
export { ModernHandler, checkMethod, checkVersion, hasModernClaim, readEnvelope } from './modern';
export type { CacheHints, Envelope, ModernSink } from './modern';
export { TASKS_EXTENSION } from './tasks';
export type { TaskOptions, TaskStart, TaskStatus, TaskSupport } from './tasks';
export type { ConnectionOptions, EngineOptions } from './engine';
export { StdioTransport, DEFAULT_MAX_MESSAGE_BYTES } from './transports/stdio.transport';
export type { StdioTransportOptions } from './transports/stdio.transport';
export { ERROR_CATALOG, HermesError, ToolError } from './errors';
export { interopStatus } from './interop/report';
export type { InteropStatus } from './interop/report';
export type { HermesErrorCode } from './errors';
export { audio, embedded, image, resourceLink, text } from './content';
export { createLogger } from './logger';
export type { Logger, LoggerOptions } from './logger';
export { Registry } from './registry';
export type { ListKind, Page, PromptDefinition, ResourceDefinition, ResourceTemplateDefinition, ToolDefinition } from './registry';
export { compileUriTemplate } from './uri-template';
export type { UriTemplate } from './uri-template';
export { JSON_SCHEMA_2020_12, buildObjectSchema, emptyObjectSchema, promptArgumentsFor } from './schema/schema-builder';
export { Description, JSONSchema } from './schema/description.decorator';
export { McpHeader } from './schema/mcp-header.decorator';
export { formatIssues, validateInput, validateInputAsync } from './validation/validator';
export type { ValidateOptions, ValidationIssue, ValidationResult } from './validation/validator';
export { McpError, ErrorCode } from '@hermes-mcp/protocol';
export type { JsonSchemaObject } from '@hermes-mcp/protocol';
