/**
 * `@hermes-mcp/opentelemetry`: OpenTelemetry traces and metrics for Hermes MCP servers and
 * clients, by the MCP semantic conventions. See {@link instrumentOpenTelemetry}.
 */
export { instrumentOpenTelemetry } from './instrumentation';
export type { OpenTelemetryInstrumentation, OpenTelemetryOptions } from './instrumentation';
