/**
 * What a modern-era (2026-07-28) request is once admitted: its validated `_meta` envelope and where
 * its notifications go. Types only, shared by the checks, the method table and the modern handler
 * without tying them to each other.
 */
import type { ClientCapabilities, Implementation, InboundRequestExtra, JsonRpcRequest, LoggingLevel, ModernProtocolVersion } from '@hermes-mcp/protocol';

/** A validated envelope. For the Hermes packages. */
export interface Envelope {
  version: ModernProtocolVersion;
  clientInfo?: Implementation;
  capabilities: ClientCapabilities;
  logLevel?: LoggingLevel;
  meta: Record<string, unknown>;
}

/** Where a modern request's notifications go (its own response stream). For the Hermes packages. */
export interface ModernSink {
  notify(method: string, params: Record<string, unknown>): Promise<void>;
}

/** One modern request as the methods of the modern era's own receive it. For the Hermes packages. */
export interface ModernCall {
  readonly request: JsonRpcRequest;
  readonly params: Record<string, unknown>;
  readonly envelope: Envelope;
  readonly extra: InboundRequestExtra;
  readonly sink: ModernSink;
}
