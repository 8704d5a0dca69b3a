/**
 * Every official 2026-07-28 example round-trips through the JSON-RPC codec.
 *
 * The examples live beside the schema (`test-support/mcp-schema/2026-07-28/examples/<Definition>/*.json`,
 * copied from the official repository); each folder is named by the definition its files
 * satisfy. For every file:
 * 1. it validates against that definition, so we know it was read and filed correctly, and its
 *    JSON text survives `JSON.parse` (numbers, unicode, base64 kept as written);
 * 2. it becomes a whole JSON-RPC message: as it is when the definition is one (it declares
 *    `jsonrpc`), else wrapped in the message it travels in ({@link PLACEMENTS}), which must satisfy
 *    the schema as well;
 * 3. that message goes through `parseFrame`, is classified as the right kind and comes out equal
 *    to what went in, and our builders, fed the parsed parts, build it again.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import {
  type ClassifiedMessage,
  type JsonRpcMessage,
  type MessageKind,
  type RequestId,
  classify,
  errorResponse,
  notification,
  parseFrame,
  request,
  resultResponse,
} from '@hermes-mcp/protocol';
import { SCHEMA_DIR } from '../../../test-support/mcp-schema';

const REVISION = '2026-07-28';

type Json = Record<string, unknown>;

/** One example file. */
interface Example {
  /** `<folder>/<file>.json`. */
  file: string;
  text: string;
  value: Json;
}

/** The 2026-07-28 schema, compiled, and its examples by folder. */
interface Corpus {
  defs: Record<string, Json>;
  validate(name: string, value: unknown): string[];
  examples: Map<string, Example[]>;
}

/** Reads the schema and its examples; throws, naming the path, when either is missing. */
function loadCorpus(): Corpus {
  const dir = path.join(SCHEMA_DIR, REVISION);
  const schemaFile = path.join(dir, 'schema.json');
  const examplesDir = path.join(dir, 'examples');
  for (const needed of [schemaFile, examplesDir]) {
    if (!existsSync(needed))
      throw new Error(`the official ${REVISION} schema is incomplete: ${needed} does not exist (test-support/mcp-schema/README.md says where it comes from)`);
  }
  const document = JSON.parse(readFileSync(schemaFile, 'utf8')) as Json;
  const defs = document.$defs as Record<string, Json>;
  // `strict: false` lets ajv accept the schema's own annotation keywords; it does not loosen validation.
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(document, REVISION);
  const compiled = new Map<string, ValidateFunction>();
  const validate = (name: string, value: unknown): string[] => {
    if (!defs[name]) return [`${REVISION} defines no ${name}`];
    let fn = compiled.get(name);
    if (!fn) compiled.set(name, (fn = ajv.compile({ $ref: `${REVISION}#/$defs/${name}` })));
    if (fn(value)) return [];
    return (fn.errors ?? []).map((e: ErrorObject) => `${name}${e.instancePath} ${e.message ?? 'is invalid'} ${JSON.stringify(e.params)}`);
  };

  const examples = new Map<string, Example[]>();
  const folders = readdirSync(examplesDir, { withFileTypes: true }).filter((d) => d.isDirectory());
  for (const folder of folders.map((d) => d.name).sort()) {
    const files = readdirSync(path.join(examplesDir, folder))
      .filter((f) => f.endsWith('.json'))
      .sort();
    examples.set(
      folder,
      files.map((f) => {
        const text = readFileSync(path.join(examplesDir, folder, f), 'utf8');
        return { file: `${folder}/${f}`, text, value: JSON.parse(text) as Json };
      }),
    );
  }
  return { defs, validate, examples };
}

/**
 * The file's JSON text with insignificant whitespace dropped and each string re-escaped as
 * `JSON.stringify` would: equal to `JSON.stringify(JSON.parse(text))` exactly when parsing lost
 * nothing (an integer past 2^53, a float with too many digits and `1.0` would all differ).
 */
function canonicalText(text: string): string {
  return text.replace(/"(?:[^"\\]|\\.)*"|\s+/g, (token) => (token.startsWith('"') ? JSON.stringify(JSON.parse(token)) : ''));
}

// ---------------------------------------------------------------------------------------------
// Where a bare payload travels.

/** How a payload that is not a whole message is put on the wire. */
interface Placement {
  /** What `classify` must say the message is. */
  kind: MessageKind;
  /** The definition the whole message must satisfy. */
  envelope: string;
  wrap(payload: Json): JsonRpcMessage;
}

/** The `_meta` every 2026-07-28 client request carries (RequestMetaObject's required keys). */
const META = {
  'io.modelcontextprotocol/protocolVersion': REVISION,
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** What a cacheable result (list, read, discover) must add. */
const CACHE = { ttlMs: 0, cacheScope: 'private' };

const asResult = (envelope: string): Placement => ({ kind: 'result', envelope, wrap: (x) => resultResponse(1, x) });
const inResult = (envelope: string, result: (x: Json) => Json): Placement => ({ kind: 'result', envelope, wrap: (x) => resultResponse(1, result(x)) });
const asParams = (envelope: string, method: string): Placement => ({ kind: 'request', envelope, wrap: (x) => request(1, method, x) });
const inParams = (envelope: string, method: string, params: (x: Json) => Json): Placement => ({
  kind: 'request',
  envelope,
  wrap: (x) => request(1, method, params(x)),
});
const asNotificationParams = (envelope: string, method: string): Placement => ({ kind: 'notification', envelope, wrap: (x) => notification(method, x) });
const asError = (id: RequestId | undefined): Placement => ({
  kind: 'error',
  envelope: 'JSONRPCErrorResponse',
  wrap: (x) => errorResponse(id, x as { code: number; message: string }),
});

/** A tools/call result showing one content block. */
const toolResult = (block: Json): Json => ({ resultType: 'complete', content: [block] });
/** A result asking the client for one thing before the server can answer (2026-07-28 has no server→client requests). */
const inputRequired = (inputRequest: Json): Json => ({ resultType: 'input_required', inputRequests: { ask: inputRequest } });
const sampling = (params: Json): Json => inputRequired({ method: 'sampling/createMessage', params });
const elicitation = (params: Json): Json => inputRequired({ method: 'elicitation/create', params });
const formField = (field: Json): Json => elicitation({ mode: 'form', message: 'Please fill in the form', requestedSchema: { type: 'object', properties: { field } } });
/** The params of a tools/call retried with the client's answers to an {@link inputRequired}. */
const retriedCall = (inputResponses: Json): Json => ({ _meta: META, name: 'example', inputResponses });

const answerToCall = inParams('CallToolRequest', 'tools/call', (x) => retriedCall({ ask: x }));

/** The message each bare payload travels in, by folder. Whole messages are not listed. */
const PLACEMENTS: Readonly<Record<string, Placement>> = {
  // Results, as the result of their own request.
  CallToolResult: asResult('CallToolResultResponse'),
  CompleteResult: asResult('CompleteResultResponse'),
  DiscoverResult: asResult('DiscoverResultResponse'),
  GetPromptResult: asResult('GetPromptResultResponse'),
  InputRequiredResult: asResult('CallToolResultResponse'),
  ListPromptsResult: asResult('ListPromptsResultResponse'),
  ListResourceTemplatesResult: asResult('ListResourceTemplatesResultResponse'),
  ListResourcesResult: asResult('ListResourcesResultResponse'),
  ListToolsResult: asResult('ListToolsResultResponse'),
  ReadResourceResult: asResult('ReadResourceResultResponse'),
  SubscriptionsListenResult: asResult('SubscriptionsListenResultResponse'),

  // Parts of results.
  AudioContent: inResult('CallToolResultResponse', toolResult),
  EmbeddedResource: inResult('CallToolResultResponse', toolResult),
  ImageContent: inResult('CallToolResultResponse', toolResult),
  ResourceLink: inResult('CallToolResultResponse', toolResult),
  TextContent: inResult('CallToolResultResponse', toolResult),
  BlobResourceContents: inResult('ReadResourceResultResponse', (x) => ({ resultType: 'complete', contents: [x], ...CACHE })),
  TextResourceContents: inResult('ReadResourceResultResponse', (x) => ({ resultType: 'complete', contents: [x], ...CACHE })),
  Resource: inResult('ListResourcesResultResponse', (x) => ({ resultType: 'complete', resources: [x], ...CACHE })),
  Tool: inResult('ListToolsResultResponse', (x) => ({ resultType: 'complete', tools: [x], ...CACHE })),
  ServerCapabilities: inResult('DiscoverResultResponse', (x) => ({ resultType: 'complete', supportedVersions: [REVISION], capabilities: x, ...CACHE })),

  // Params of client requests and of notifications.
  CallToolRequestParams: asParams('CallToolRequest', 'tools/call'),
  CompleteRequestParams: asParams('CompleteRequest', 'completion/complete'),
  GetPromptRequestParams: asParams('GetPromptRequest', 'prompts/get'),
  PaginatedRequestParams: asParams('ListToolsRequest', 'tools/list'),
  ClientCapabilities: inParams('DiscoverRequest', 'server/discover', (x) => ({ _meta: { ...META, 'io.modelcontextprotocol/clientCapabilities': x } })),
  CancelledNotificationParams: asNotificationParams('CancelledNotification', 'notifications/cancelled'),
  LoggingMessageNotificationParams: asNotificationParams('LoggingMessageNotification', 'notifications/message'),
  ProgressNotificationParams: asNotificationParams('ProgressNotification', 'notifications/progress'),
  ResourceUpdatedNotificationParams: asNotificationParams('ResourceUpdatedNotification', 'notifications/resources/updated'),

  // Error objects. A parse error answers no readable id, which 2026-07-28 says by leaving `id` out.
  InternalError: asError(1),
  InvalidParamsError: asError(1),
  MethodNotFoundError: asError(1),
  ParseError: asError(undefined),

  // What the server asks of the client: in 2026-07-28 an entry of an InputRequiredResult, not a
  // JSON-RPC request (these definitions have no `jsonrpc`).
  CreateMessageRequest: inResult('CallToolResultResponse', inputRequired),
  ElicitRequest: inResult('CallToolResultResponse', inputRequired),
  ListRootsRequest: inResult('CallToolResultResponse', inputRequired),
  InputRequests: inResult('CallToolResultResponse', (x) => ({ resultType: 'input_required', inputRequests: x })),
  CreateMessageRequestParams: inResult('CallToolResultResponse', sampling),
  SamplingMessage: inResult('CallToolResultResponse', (x) => sampling({ messages: [x], maxTokens: 100 })),
  ModelPreferences: inResult('CallToolResultResponse', (x) => sampling({ messages: [], maxTokens: 100, modelPreferences: x })),
  ToolUseContent: inResult('CallToolResultResponse', (x) => sampling({ messages: [{ role: 'assistant', content: x }], maxTokens: 100 })),
  ToolResultContent: inResult('CallToolResultResponse', (x) => sampling({ messages: [{ role: 'user', content: x }], maxTokens: 100 })),
  ElicitRequestFormParams: inResult('CallToolResultResponse', elicitation),
  ElicitRequestURLParams: inResult('CallToolResultResponse', elicitation),
  BooleanSchema: inResult('CallToolResultResponse', formField),
  NumberSchema: inResult('CallToolResultResponse', formField),
  StringSchema: inResult('CallToolResultResponse', formField),
  TitledMultiSelectEnumSchema: inResult('CallToolResultResponse', formField),
  TitledSingleSelectEnumSchema: inResult('CallToolResultResponse', formField),
  UntitledMultiSelectEnumSchema: inResult('CallToolResultResponse', formField),
  UntitledSingleSelectEnumSchema: inResult('CallToolResultResponse', formField),

  // What the client answers: `inputResponses` of the retried request.
  CreateMessageResult: answerToCall,
  ElicitResult: answerToCall,
  ListRootsResult: answerToCall,
  Root: inParams('CallToolRequest', 'tools/call', (x) => retriedCall({ ask: { roots: [x] } })),
  InputResponses: inParams('CallToolRequest', 'tools/call', retriedCall),
};

/** A whole message as it is, when the folder's definition is a JSON-RPC message (declares `jsonrpc`). */
function wholeMessage(def: Json, folder: string): Placement | undefined {
  const properties = (def.properties ?? {}) as Json;
  if (!('jsonrpc' in properties)) return undefined;
  const kind: MessageKind = 'result' in properties ? 'result' : 'error' in properties ? 'error' : 'id' in properties ? 'request' : 'notification';
  return { kind, envelope: folder, wrap: (x) => x as unknown as JsonRpcMessage };
}

/** The message our builders make from the parts of a classified message. */
function rebuild(classified: ClassifiedMessage): JsonRpcMessage {
  switch (classified.kind) {
    case 'request':
      return request(classified.message.id, classified.message.method, classified.message.params);
    case 'notification':
      return notification(classified.message.method, classified.message.params);
    case 'result':
      return resultResponse(classified.message.id, classified.message.result);
    case 'error':
      return errorResponse(classified.message.id, classified.message.error);
    case 'invalid':
      throw new Error(`the codec refused the message: ${classified.error.message}`);
  }
}

// ---------------------------------------------------------------------------------------------

const corpus = loadCorpus();

describe(`${REVISION} examples`, () => {
  it('are there to test', () => {
    expect(corpus.examples.size).toBeGreaterThan(0);
    expect([...corpus.examples.values()].flat().length).toBeGreaterThan(0);
  });

  describe.each([...corpus.examples.keys()])('%s', (folder) => {
    const def = corpus.defs[folder];
    const placement = def ? (wholeMessage(def, folder) ?? PLACEMENTS[folder]) : undefined;

    it.each(corpus.examples.get(folder)!.map((e) => [e.file, e] as const))('%s round-trips through the codec', (_file, example) => {
      // 1. Read right: the folder's definition accepts it, and parsing it lost nothing.
      expect(def).toBeDefined();
      expect(corpus.validate(folder, example.value)).toEqual([]);
      expect(JSON.stringify(example.value)).toBe(canonicalText(example.text));

      // 2. A whole message, in the envelope the payload travels in.
      if (!placement) throw new Error(`no placement for ${folder}: it is not a JSON-RPC message, so add the message it travels in to PLACEMENTS`);
      const message = placement.wrap(example.value);
      expect(corpus.validate('JSONRPCMessage', message)).toEqual([]);
      expect(corpus.validate(placement.envelope, message)).toEqual([]);

      // 3. Through the codec and back, unchanged.
      const wire = JSON.stringify(message);
      const frame = parseFrame(wire);
      if (frame.kind !== 'single') throw new Error(`expected a single message, got ${JSON.stringify(frame)}`);
      const classified = frame.message;
      if (classified.kind === 'invalid') throw new Error(`the codec refused ${example.file}: ${classified.error.message}`);
      expect(classified.kind).toBe(placement.kind);
      expect(classified.message).toStrictEqual(message);
      expect(JSON.stringify(classified.message)).toBe(wire);
      expect(rebuild(classified)).toStrictEqual(message);
      expect(JSON.stringify(rebuild(classified))).toBe(JSON.stringify(JSON.parse(wire)));
    });
  });
});

// The 2026-07-28 schema makes the id of an error response optional (its RequestId excludes null):
// an error that answers no readable id leaves it out. The codec refused such a response.
describe('an error response without id (2026-07-28)', () => {
  const error = { code: -32700, message: 'Parse error: Invalid JSON' };

  it('is classified as an error response and kept as sent', () => {
    const value = { jsonrpc: '2.0', error };
    expect(classify(value)).toStrictEqual({ kind: 'error', message: { jsonrpc: '2.0', error } });
    const frame = parseFrame(JSON.stringify(value));
    expect(frame).toStrictEqual({ kind: 'single', message: { kind: 'error', message: { jsonrpc: '2.0', error } } });
  });

  it('is built by errorResponse(undefined, …), while null still gives "id": null', () => {
    expect(errorResponse(undefined, error)).toStrictEqual({ jsonrpc: '2.0', error });
    expect(errorResponse(null, error)).toStrictEqual({ jsonrpc: '2.0', id: null, error });
  });

  it('still refuses an id that is neither a string, an integer nor null', () => {
    expect(classify({ jsonrpc: '2.0', id: 1.5, error }).kind).toBe('invalid');
    expect(classify({ jsonrpc: '2.0', id: { a: 1 }, error }).kind).toBe('invalid');
  });
});
