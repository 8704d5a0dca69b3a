/**
 * The official MCP JSON Schemas, as a referee for what a server puts on the wire.
 *
 * The schemas are in the repository, copied unchanged from the official specification repository
 * (`test-support/mcp-schema/<revision>/schema.json`; its README names the commit and the licence),
 * so every clone runs every test against them. A missing one fails the suite that needs it, with
 * the path it looked for: no test is skipped for want of a schema.
 *
 * {@link validateServerMessage} checks one message the server sent, for the revision that was
 * negotiated:
 * - the envelope (JSONRPCRequest / JSONRPCNotification / the result and error responses, under
 *   whatever names the revision gives them);
 * - the payload: a result against the result type of the method that was asked, a notification
 *   or server→client request against its own definition (which must be one the server may send);
 * - "no field the revision lacks": the schemas leave objects open (no `additionalProperties:
 *   false`), so every key of the result, its tools, resources, prompts, content blocks and so on
 *   is also looked up in that definition's `properties` in that revision's schema.
 *
 * {@link validateModernServerMessage} does the same for 2026-07-28 (loaded with
 * {@link loadModernSchema}), where results are typed by their `resultType` and errors by their code.
 */
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/** The revisions that start with `initialize` (the ones a stdio client negotiates). */
export const LEGACY_REVISIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;

/** One of {@link LEGACY_REVISIONS}. */
export type LegacyRevision = (typeof LEGACY_REVISIONS)[number];

/** The stateless revision: no `initialize`, a `_meta` envelope on every request. */
export const MODERN_REVISION = '2026-07-28';

/** {@link MODERN_REVISION}. */
export type ModernRevision = typeof MODERN_REVISION;

/** Any revision with a schema here. */
export type Revision = LegacyRevision | ModernRevision;

/** A request id as JSON-RPC carries it. */
export type MessageId = string | number;

type JsonSchema = { [key: string]: unknown };

/** The result type of each client→server method (EmptyResult where the spec says so). */
const RESULT_OF: Readonly<Record<string, string>> = {
  initialize: 'InitializeResult',
  ping: 'EmptyResult',
  'logging/setLevel': 'EmptyResult',
  'tools/list': 'ListToolsResult',
  'tools/call': 'CallToolResult',
  'resources/list': 'ListResourcesResult',
  'resources/templates/list': 'ListResourceTemplatesResult',
  'resources/read': 'ReadResourceResult',
  'resources/subscribe': 'EmptyResult',
  'resources/unsubscribe': 'EmptyResult',
  'prompts/list': 'ListPromptsResult',
  'prompts/get': 'GetPromptResult',
  'completion/complete': 'CompleteResult',
};

/** The definition of each server→client notification. */
/** Notifications both eras have. */
const COMMON_NOTIFICATION_DEF: Readonly<Record<string, string>> = {
  'notifications/progress': 'ProgressNotification',
  'notifications/message': 'LoggingMessageNotification',
  'notifications/cancelled': 'CancelledNotification',
  'notifications/resources/updated': 'ResourceUpdatedNotification',
  'notifications/resources/list_changed': 'ResourceListChangedNotification',
  'notifications/tools/list_changed': 'ToolListChangedNotification',
  'notifications/prompts/list_changed': 'PromptListChangedNotification',
};

const NOTIFICATION_DEF: Readonly<Record<string, string>> = {
  ...COMMON_NOTIFICATION_DEF,
  'notifications/elicitation/complete': 'ElicitationCompleteNotification',
  'notifications/tasks/status': 'TaskStatusNotification',
};

/** The definition of each server→client request. */
const SERVER_REQUEST_DEF: Readonly<Record<string, string>> = {
  ping: 'PingRequest',
  'sampling/createMessage': 'CreateMessageRequest',
  'roots/list': 'ListRootsRequest',
  'elicitation/create': 'ElicitRequest',
};

/** Values whose content is open by design (JSON Schemas, free JSON): their keys are not checked. */
const FREE_FORM_PROPERTIES = new Set(['inputSchema', 'outputSchema', 'structuredContent', '_meta']);

/** One revision's schema, compiled. */
export class RevisionSchema {
  private readonly ajv: Ajv;
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly defs: Record<string, JsonSchema>;
  private readonly defsKey: 'definitions' | '$defs';
  private readonly key: string;

  constructor(
    readonly revision: Revision,
    readonly file: string,
    document: JsonSchema,
  ) {
    const dialect = String(document.$schema ?? '');
    // draft-07 for 2024-11-05 … 2025-06-18, 2020-12 for 2025-11-25. `strict: false` lets ajv
    // accept the schemas' own annotation keywords; it does not loosen validation.
    this.ajv = dialect.includes('2020-12') ? new Ajv2020({ strict: false, allErrors: true }) : new Ajv({ strict: false, allErrors: true });
    addFormats(this.ajv);
    this.defsKey = document.$defs ? '$defs' : 'definitions';
    this.defs = document[this.defsKey] as Record<string, JsonSchema>;
    if (!this.defs) throw new Error(`${file} has neither "definitions" nor "$defs"`);
    this.key = `mcp-schema-${revision}`;
    this.ajv.addSchema(document, this.key);
  }

  /** True when the revision defines `name`. */
  has(name: string): boolean {
    return Object.prototype.hasOwnProperty.call(this.defs, name);
  }

  /** The first of `names` this revision defines (definitions were renamed between revisions). */
  pick(...names: string[]): string {
    const found = names.find((n) => this.has(n));
    if (!found) throw new Error(`${this.revision} defines none of ${names.join(', ')}`);
    return found;
  }

  /** Validates `value` against the definition `name`; returns readable errors (empty when valid). */
  validate(name: string, value: unknown): string[] {
    let fn = this.compiled.get(name);
    if (!fn) {
      fn = this.ajv.compile({ $ref: `${this.key}#/${this.defsKey}/${name}` });
      this.compiled.set(name, fn);
    }
    if (fn(value)) return [];
    return (fn.errors ?? []).map((e: ErrorObject) => `${name}${e.instancePath || ''} ${e.message ?? 'is invalid'}${paramsText(e)}`);
  }

  /** The definitions `name` is a union of (`anyOf` of `$ref`s), e.g. ServerNotification. */
  unionMembers(name: string): string[] {
    const def = this.defs[name];
    const branches = (def?.anyOf ?? def?.oneOf ?? []) as JsonSchema[];
    return branches
      .map(
        (b) =>
          String(b.$ref ?? '')
            .split('/')
            .pop() ?? '',
      )
      .filter(Boolean);
  }

  /**
   * Lists every key of `value` (recursively) that definition `name` does not declare in this
   * revision: the "no field the revision lacks" check the open schemas cannot make themselves.
   */
  unknownKeys(name: string, value: unknown, where = name): string[] {
    return this.walk(this.defs[name], value, where, new Set());
  }

  /** {@link unknownKeys} for one property of definition `name` (e.g. a notification's `params`). */
  unknownKeysOfProperty(name: string, property: string, value: unknown): string[] {
    const def = this.resolve(this.defs[name]);
    const properties = (def?.properties ?? {}) as Record<string, JsonSchema>;
    return this.walk(properties[property], value, property, new Set());
  }

  private resolve(schema: JsonSchema | undefined): JsonSchema | undefined {
    let current = schema;
    for (let i = 0; current && typeof current.$ref === 'string' && i < 20; i++) {
      current = this.defs[current.$ref.split('/').pop()!];
    }
    return current;
  }

  private walk(raw: JsonSchema | undefined, value: unknown, where: string, seen: Set<unknown>): string[] {
    const schema = this.resolve(raw);
    if (!schema || value === null || typeof value !== 'object' || seen.has(value)) return [];
    seen.add(value);
    if (Array.isArray(value)) {
      const items = schema.items as JsonSchema | undefined;
      return items ? value.flatMap((v, i) => this.walk(items, v, `${where}[${i}]`, seen)) : [];
    }
    const branches = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
    if (branches) {
      const branch = this.chooseBranch(branches, value as Record<string, unknown>);
      return branch ? this.walk(branch, value, where, seen) : [];
    }
    const properties = schema.properties as Record<string, JsonSchema> | undefined;
    // An object with `additionalProperties` (other than false) is a map or deliberately open.
    if (!properties || (schema.additionalProperties !== undefined && schema.additionalProperties !== false)) return [];
    const out: string[] = [];
    for (const [key, child] of Object.entries(value)) {
      if (!Object.prototype.hasOwnProperty.call(properties, key)) {
        out.push(`${where}.${key} is not a field of this object in ${this.revision}`);
      } else if (!FREE_FORM_PROPERTIES.has(key)) {
        out.push(...this.walk(properties[key], child, `${where}.${key}`, seen));
      }
    }
    return out;
  }

  /** The union branch a value belongs to: its `const` discriminators match and its required keys are present. */
  private chooseBranch(branches: JsonSchema[], value: Record<string, unknown>): JsonSchema | undefined {
    return branches.find((b) => {
      const branch = this.resolve(b);
      const properties = (branch?.properties ?? {}) as Record<string, JsonSchema>;
      const required = (branch?.required ?? []) as string[];
      const constsMatch = Object.entries(properties).every(([k, p]) => !('const' in p) || value[k] === p.const);
      return constsMatch && required.every((k) => k in value);
    });
  }
}

function paramsText(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  if ('additionalProperty' in p) return ` (${String(p.additionalProperty)})`;
  if ('allowedValue' in p) return ` (${JSON.stringify(p.allowedValue)})`;
  if ('missingProperty' in p) return ` (${String(p.missingProperty)})`;
  return '';
}

/** The compiled schemas of every legacy revision. */
export interface SchemaSet {
  /** Where they were read from. */
  readonly dir: string;
  /** One compiled schema per revision. */
  readonly revisions: ReadonlyMap<LegacyRevision, RevisionSchema>;
}

/** The folder of the official schemas: `test-support/mcp-schema`, one `<revision>/schema.json` each. */
export const SCHEMA_DIR = path.join(__dirname, 'mcp-schema');

/** Reads and compiles one revision's schema; a missing file is an error that names it. */
function loadRevision(revision: Revision, dir: string): RevisionSchema {
  const file = path.join(dir, revision, 'schema.json');
  if (!existsSync(file)) {
    throw new Error(`the official MCP schema of ${revision} is missing: ${file} does not exist (test-support/mcp-schema/README.md says where it comes from)`);
  }
  return new RevisionSchema(revision, file, JSON.parse(readFileSync(file, 'utf8')) as JsonSchema);
}

/**
 * Loads and compiles the schema of every legacy revision (or of those given). Throws when one is
 * missing.
 *
 * @example
 * const schemas = loadSchemas();
 * validateServerMessage(schemas.revisions.get('2025-11-25')!, message, requestMethodById);
 * @see loadModernSchema for 2026-07-28.
 */
export function loadSchemas(revisions: readonly LegacyRevision[] = LEGACY_REVISIONS, dir: string = SCHEMA_DIR): SchemaSet {
  return { dir, revisions: new Map(revisions.map((revision) => [revision, loadRevision(revision, dir)])) };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is MessageId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
}

/**
 * Validates one message the server sent on a connection that negotiated `schema.revision`.
 * `requestMethodById` maps the id of each request the client sent to its method, so a result is
 * checked against the result type of what was asked. Returns the violations (empty when valid),
 * each prefixed with what the message was.
 */
export function validateServerMessage(schema: RevisionSchema, message: unknown, requestMethodById: ReadonlyMap<MessageId, string>): string[] {
  if (Array.isArray(message)) {
    if (!schema.has('JSONRPCBatchResponse')) return [`a batch array was sent, but ${schema.revision} has no JSON-RPC batches`];
    const envelope = schema.validate('JSONRPCBatchResponse', message);
    return [...envelope, ...message.flatMap((m) => validateServerMessage(schema, m, requestMethodById))];
  }
  if (!isRecord(message)) return [`not a JSON object: ${JSON.stringify(message)}`];

  if (typeof message.method === 'string' && 'id' in message) {
    const label = `request ${JSON.stringify(message.id)} ${message.method}`;
    return prefix(label, [...schema.validate('JSONRPCRequest', message), ...payload(schema, message.method, SERVER_REQUEST_DEF[message.method], 'ServerRequest', message)]);
  }
  if (typeof message.method === 'string') {
    const label = `notification ${message.method}`;
    return prefix(label, [...schema.validate('JSONRPCNotification', message), ...payload(schema, message.method, NOTIFICATION_DEF[message.method], 'ServerNotification', message)]);
  }
  if ('result' in message) {
    const envelope = schema.pick('JSONRPCResultResponse', 'JSONRPCResponse');
    const method = isId(message.id) ? requestMethodById.get(message.id) : undefined;
    const label = `result ${JSON.stringify(message.id)} (${method ?? 'unknown request'})`;
    const out = [...schema.validate(envelope, message), ...schema.unknownKeys(envelope, message, 'message')];
    if (!method) {
      out.push('answers no request the client sent');
    } else {
      const resultDef = RESULT_OF[method];
      if (!resultDef) out.push(`no result type is known for ${method}`);
      else if (!schema.has(resultDef)) out.push(`${schema.revision} has no ${resultDef}`);
      else out.push(...schema.validate(resultDef, message.result), ...schema.unknownKeys(resultDef, message.result, 'result'));
    }
    return prefix(label, out);
  }
  if ('error' in message) {
    const envelope = schema.pick('JSONRPCErrorResponse', 'JSONRPCError');
    const label = `error ${JSON.stringify(message.id)}`;
    const out = [...schema.validate(envelope, message), ...schema.unknownKeys(envelope, message, 'message')];
    if (isId(message.id) && !requestMethodById.has(message.id)) out.push('answers no request the client sent');
    return prefix(label, out);
  }
  return [`neither a request, a notification nor a response: ${JSON.stringify(message).slice(0, 200)}`];
}

/** Checks a notification's or request's own definition, its union membership and its params' keys. */
function payload(schema: RevisionSchema, method: string, def: string | undefined, union: string, message: Record<string, unknown>): string[] {
  if (!def) return [`no definition is known for ${method}`];
  if (!schema.has(def)) return [`${schema.revision} has no ${def}`];
  const out = schema.validate(def, message);
  if (!schema.unionMembers(union).includes(def)) out.push(`${def} is not a ${union} in ${schema.revision}`);
  if (message.params !== undefined) {
    out.push(...schema.unknownKeysOfProperty(def, 'params', message.params));
  }
  return out;
}

function prefix(label: string, violations: string[]): string[] {
  return violations.map((v) => `${label}: ${v}`);
}

// ---------------------------------------------------------------------------------------------
// 2026-07-28: no initialize, results typed by `resultType`, errors typed by their code.
// ---------------------------------------------------------------------------------------------

/** The result type of each 2026-07-28 method (the registry the revision has; anything else is -32601). */
const MODERN_RESULT_OF: Readonly<Record<string, string>> = {
  'server/discover': 'DiscoverResult',
  'tools/list': 'ListToolsResult',
  'tools/call': 'CallToolResult',
  'resources/list': 'ListResourcesResult',
  'resources/templates/list': 'ListResourceTemplatesResult',
  'resources/read': 'ReadResourceResult',
  'prompts/list': 'ListPromptsResult',
  'prompts/get': 'GetPromptResult',
  'completion/complete': 'CompleteResult',
  'subscriptions/listen': 'SubscriptionsListenResult',
};

/** The only methods that may answer with an `InputRequiredResult` (MRTR). */
const MODERN_ROUNDS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read']);

/** The definition of each notification a 2026-07-28 server may send. */
const MODERN_NOTIFICATION_DEF: Readonly<Record<string, string>> = {
  ...COMMON_NOTIFICATION_DEF,
  'notifications/subscriptions/acknowledged': 'SubscriptionsAcknowledgedNotification',
};

/**
 * Errors by code: the three MCP codes have whole-response definitions (with their `data`), the
 * JSON-RPC codes have definitions of the error object.
 */
const MODERN_ERROR_RESPONSE_DEF: Readonly<Record<number, string>> = {
  [-32020]: 'HeaderMismatchError',
  [-32021]: 'MissingRequiredClientCapabilityError',
  [-32022]: 'UnsupportedProtocolVersionError',
};
const MODERN_ERROR_OBJECT_DEF: Readonly<Record<number, string>> = {
  [-32700]: 'ParseError',
  [-32600]: 'InvalidRequestError',
  [-32601]: 'MethodNotFoundError',
  [-32602]: 'InvalidParamsError',
  [-32603]: 'InternalError',
};

/** Loads and compiles the 2026-07-28 schema. Throws when it is missing. */
export function loadModernSchema(dir: string = SCHEMA_DIR): RevisionSchema {
  return loadRevision(MODERN_REVISION, dir);
}

/**
 * Validates one message a server sent in the 2026-07-28 era, the counterpart of
 * {@link validateServerMessage}:
 * - no batches and no server→client requests (questions travel inside `InputRequiredResult`);
 * - a notification against its definition, which must be a `ServerNotification` of 2026;
 * - a result by its `resultType`: `input_required` only on `tools/call`, `prompts/get` and
 *   `resources/read`, against `InputRequiredResult` with at least one of `inputRequests` and
 *   `requestState` (and so no cache hints); `complete` against the method's own result type
 *   (which makes `ttlMs`/`cacheScope` required where the method is cacheable);
 * - an error against its code's definition (`-32022` needs `data.supported` and `data.requested`,
 *   …); its `id`, when there is one, must be a request the client sent (never `null`);
 * - as for the legacy revisions, every key must be a field of its object in 2026-07-28.
 */
export function validateModernServerMessage(schema: RevisionSchema, message: unknown, requestMethodById: ReadonlyMap<MessageId, string>): string[] {
  if (schema.revision !== MODERN_REVISION) return [`validateModernServerMessage needs the ${MODERN_REVISION} schema, not ${schema.revision}`];
  if (Array.isArray(message)) return ['a batch array was sent, but 2026-07-28 has no JSON-RPC batches'];
  if (!isRecord(message)) return [`not a JSON object: ${JSON.stringify(message)}`];

  if (typeof message.method === 'string' && 'id' in message) {
    return [`request ${JSON.stringify(message.id)} ${message.method}: a 2026-07-28 server sends no requests (questions go in an InputRequiredResult)`];
  }
  if (typeof message.method === 'string') {
    const label = `notification ${message.method}`;
    return prefix(label, [
      ...schema.validate('JSONRPCNotification', message),
      ...payload(schema, message.method, MODERN_NOTIFICATION_DEF[message.method], 'ServerNotification', message),
    ]);
  }
  if ('result' in message) {
    const method = isId(message.id) ? requestMethodById.get(message.id) : undefined;
    const label = `result ${JSON.stringify(message.id)} (${method ?? 'unknown request'})`;
    const out = [...schema.validate('JSONRPCResultResponse', message), ...schema.unknownKeys('JSONRPCResultResponse', message, 'message')];
    const result = message.result;
    if (!method) out.push('answers no request the client sent');
    else if (!MODERN_RESULT_OF[method]) out.push(`${method} does not exist in 2026-07-28, yet it got a result`);
    else if (isRecord(result)) out.push(...modernResult(schema, method, result));
    return prefix(label, out);
  }
  if ('error' in message) {
    const label = `error ${JSON.stringify(message.id)}`;
    const out = [...schema.validate('JSONRPCErrorResponse', message), ...schema.unknownKeys('JSONRPCErrorResponse', message, 'message')];
    if ('id' in message && isId(message.id) && !requestMethodById.has(message.id)) out.push('answers no request the client sent');
    const code = isRecord(message.error) ? message.error.code : undefined;
    if (typeof code === 'number' && MODERN_ERROR_RESPONSE_DEF[code]) out.push(...schema.validate(MODERN_ERROR_RESPONSE_DEF[code], message));
    else if (typeof code === 'number' && MODERN_ERROR_OBJECT_DEF[code]) out.push(...schema.validate(MODERN_ERROR_OBJECT_DEF[code], message.error));
    return prefix(label, out);
  }
  return [`neither a notification nor a response: ${JSON.stringify(message).slice(0, 200)}`];
}

/** A 2026 result, checked by its `resultType`. */
function modernResult(schema: RevisionSchema, method: string, result: Record<string, unknown>): string[] {
  if (result.resultType === 'input_required') {
    if (!MODERN_ROUNDS.has(method)) return [`${method} may not answer input_required (only tools/call, prompts/get and resources/read may)`];
    const out = [...schema.validate('InputRequiredResult', result), ...schema.unknownKeys('InputRequiredResult', result, 'result')];
    if (result.inputRequests === undefined && result.requestState === undefined) out.push('an InputRequiredResult needs inputRequests or requestState (or both)');
    return out;
  }
  const def = MODERN_RESULT_OF[method];
  const out = [...schema.validate(def, result), ...schema.unknownKeys(def, result, 'result')];
  if (result.resultType !== 'complete') out.push(`resultType is ${JSON.stringify(result.resultType)}, expected "complete" (or "input_required")`);
  return out;
}
