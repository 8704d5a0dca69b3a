/**
 * The MCP requests the bench sends, and the checks that an answer is right. Bodies carry autocannon's
 * `[<id>]` placeholder where every request needs a fresh value (the JSON-RPC id: many requests of
 * one session are in flight at once); `fill` replaces it for a single checked request.
 */

/** A request to replay: headers and a body template. */
export interface RequestTemplate {
  headers: Record<string, string>;
  body: string;
  /** Headers made anew for every request (a DPoP proof), on top of `headers`. */
  fresh?: () => Record<string, string>;
}

/** One JSON-RPC message as read back. */
export type RpcMessage = { id?: string | number; method?: string; result?: Record<string, unknown>; error?: { code: number; message: string } } & Record<string, unknown>;

export const LEGACY_VERSION = '2025-11-25';
export const MODERN_VERSION = '2026-07-28';
const ID = '[<id>]';

const BASE_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

/** The `tools/call` of `add(2, 3)`; `meta` goes into `params._meta`. */
export function addCall(meta?: Record<string, unknown>): string {
  const params: Record<string, unknown> = { name: 'add', arguments: { a: 2, b: 3 } };
  if (meta) params._meta = meta;
  return JSON.stringify({ jsonrpc: '2.0', id: ID, method: 'tools/call', params });
}

/** `tools/list` (first page). */
export function listCall(): string {
  return JSON.stringify({ jsonrpc: '2.0', id: ID, method: 'tools/list', params: {} });
}

/** `_meta` asking for progress, so the answer is an SSE stream (progress, then the result). */
export const PROGRESS_META = { progressToken: ID };

/** The per-request envelope of MCP 2026-07-28. */
export const MODERN_META = { 'io.modelcontextprotocol/protocolVersion': MODERN_VERSION, 'io.modelcontextprotocol/clientCapabilities': {} };

/** Headers of a modern `tools/call` of `add` (they mirror the body, SEP-2243). */
export const MODERN_HEADERS = { ...BASE_HEADERS, 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': 'tools/call', 'mcp-name': 'add' };

/** Plain headers (bare Fastify). */
export const PLAIN_HEADERS = { ...BASE_HEADERS };

/** The template with a concrete id. */
export function fill(template: RequestTemplate, id: string): RequestTemplate {
  return { headers: { ...template.headers, ...template.fresh?.() }, body: template.body.split(ID).join(id) };
}

/** The JSON-RPC messages of an answer: one JSON body, or the `data:` of each SSE event. */
export function messagesOf(contentType: string, text: string): RpcMessage[] {
  if (contentType.startsWith('application/json')) return [JSON.parse(text) as RpcMessage];
  if (!contentType.startsWith('text/event-stream')) throw new Error(`unexpected content-type "${contentType}": ${text.slice(0, 200)}`);
  const messages: RpcMessage[] = [];
  for (const event of text.split(/\r?\n\r?\n/)) {
    const data = event
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).replace(/^ /, ''))
      .join('\n');
    if (data.trim()) messages.push(JSON.parse(data) as RpcMessage);
  }
  return messages;
}

/** What an answer must look like. */
export interface Expectation {
  /** `json` or `sse`: how the answer must be framed. */
  framing: 'json' | 'sse';
  /** A `notifications/progress` must come before the response. */
  progress?: boolean;
}

/** POSTs one request and returns its status, content type and messages. */
export async function post(url: string, request: RequestTemplate): Promise<{ status: number; contentType: string; headers: Headers; messages: RpcMessage[] }> {
  const response = await fetch(url, { method: 'POST', headers: request.headers, body: request.body });
  const contentType = response.headers.get('content-type') ?? '';
  const text = await response.text();
  return { status: response.status, contentType, headers: response.headers, messages: text ? messagesOf(contentType, text) : [] };
}

/**
 * Sends the request once, with a fresh id, and checks the answer: HTTP 200, the framing expected,
 * progress first if expected, and a result whose text is `expectedText`. Throws with what was
 * wrong. Returns the result.
 */
export async function checkAnswer(url: string, template: RequestTemplate, expect: Expectation, expectedText?: string): Promise<Record<string, unknown>> {
  const id = `check-${Math.random().toString(36).slice(2)}`;
  const { status, contentType, messages } = await post(url, fill(template, id));
  const describe = () => JSON.stringify(messages).slice(0, 400);
  if (status !== 200) throw new Error(`HTTP ${status}: ${describe()}`);
  const framing = contentType.startsWith('text/event-stream') ? 'sse' : 'json';
  if (framing !== expect.framing) throw new Error(`expected a ${expect.framing} answer, got ${contentType}`);
  const index = messages.findIndex((m) => m.id === id && ('result' in m || 'error' in m));
  if (index < 0) throw new Error(`no response with id ${id}: ${describe()}`);
  const response = messages[index];
  if (!response.result) throw new Error(`error response: ${describe()}`);
  if (expect.progress && !messages.slice(0, index).some((m) => m.method === 'notifications/progress')) {
    throw new Error(`expected a progress notification before the response: ${describe()}`);
  }
  if (expectedText !== undefined) {
    const content = response.result.content as Array<{ type: string; text?: string }> | undefined;
    const text = content?.[0]?.text;
    if (text !== expectedText) throw new Error(`expected the text "${expectedText}", got ${JSON.stringify(response.result).slice(0, 300)}`);
    if (response.result.isError) throw new Error(`the tool failed: ${describe()}`);
  }
  return response.result;
}

/**
 * Opens a legacy Streamable HTTP session (initialize, then notifications/initialized) and returns
 * the headers its requests carry (with `extraHeaders`, e.g. an `authorization`).
 */
export async function openSession(url: string, extraHeaders: Record<string, string> = {}, fresh: () => Record<string, string> = () => ({})): Promise<Record<string, string>> {
  const initialize = JSON.stringify({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: LEGACY_VERSION, capabilities: {}, clientInfo: { name: 'hermes-bench', version: '1.0.0' } },
  });
  const opened = await post(url, { headers: { ...PLAIN_HEADERS, ...extraHeaders, ...fresh() }, body: initialize });
  const sessionId = opened.headers.get('mcp-session-id');
  const result = opened.messages.find((m) => m.id === 0)?.result;
  if (opened.status !== 200 || !sessionId || !result) throw new Error(`initialize failed: HTTP ${opened.status} ${JSON.stringify(opened.messages).slice(0, 300)}`);
  const headers = { ...PLAIN_HEADERS, ...extraHeaders, 'mcp-session-id': sessionId, 'mcp-protocol-version': String(result.protocolVersion) };
  const initialized = await fetch(url, { method: 'POST', headers: { ...headers, ...fresh() }, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) });
  await initialized.arrayBuffer();
  if (initialized.status !== 202) throw new Error(`notifications/initialized: HTTP ${initialized.status}`);
  return headers;
}
