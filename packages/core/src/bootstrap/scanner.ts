/**
 * The scanner: reads the decorators' metadata of the server class and its components once, builds
 * their instances through the container, and fills a {@link Registry} with resolved definitions.
 */
import 'reflect-metadata';
import { isThenable } from '@hermes-mcp/protocol';
import type { JsonSchemaObject, Meta, Prompt, Resource, ResourceTemplate, Tool } from '@hermes-mcp/protocol';
import { Constructor, DependencyContainer, instantiate } from '../container';
import { McpContext } from '../context/mcp-context';
import { HermesError } from '../errors';
import { CTX_PARAM, HANDLERS, SERVER_OPTIONS, SKILL_METHODS } from '../metadata/keys';
import type { AppResourceOptions, HandlerKind, HandlerMetadata, McpServerOptions, MountMap, PromptOptions, ResourceOptions, SchemaOptions, ToolOptions } from '../metadata/options';
import { CursorCodec } from './cursor';
import { checkMountable, checkSeparator, mountInto, mountsOf, setMountHost } from './mount';
import { appResourceOf, checkAppLink, toolMetaOf } from './apps';
import { completersFor } from './completion';
import { compose, middlewareOf, resolveMiddleware } from '../engine/middleware';
import { requiredScopesOf, scopeGuard, unionOfScopes } from '../auth/scopes';
import { checkScopes } from '../decorators/require-scopes.decorator';
import { Invocation, PromptDefinition, Registry, ToolDefinition } from './registry';
import { SchemaWarning, buildObjectSchema, closedObjectSchema, emptyObjectSchema, promptArgumentsFor, schemaWarningsFor } from '../schema/schema-builder';
import { compileUriTemplate, isUriTemplate } from './uri-template';
import { toCallToolResult } from '../results/normalize';
import { ValidationResult, formatIssues, validateInputNow } from '../validation/validator';

/** Names MCP 2025-11-25 recommends for tools: 1–128 of `A-Z a-z 0-9 _ - .`. */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** Types TypeScript emits for things that are not a user class (interfaces, primitives, …). */
const NOT_A_CLASS = new Set<unknown>([Object, String, Number, Boolean, Array, Function, Promise, Symbol, BigInt, Date, Map, Set, undefined]);

/**
 * The `@McpServer({ schemas })` of the server each registry was scanned from, for the tools the
 * app adds to it later (`app.addTool`) as for those it was scanned with.
 */
const serverSchemas = new WeakMap<Registry, SchemaOptions>();

/** The `@McpServer` options of a class, or undefined when it has none. */
export function serverOptionsOf(cls: Function): McpServerOptions | undefined {
  return Reflect.getMetadata(SERVER_OPTIONS, cls) as McpServerOptions | undefined;
}

/** The result of scanning a server class. @internal */
export interface ScanResult {
  options: McpServerOptions;
  instances: unknown[];
  /**
   * What the input and output classes declare that is legal but rarely meant (see
   * {@link SchemaWarning}), once per class and property: the caller logs each at `warn`.
   */
  warnings: SchemaWarning[];
}

/** How a server is scanned besides its own options: the mounts the factory adds, or where it is mounted. @internal */
export interface ScanMounts {
  /** `McpFactory.create(App, { mount })`: merged with the root server's own `mount`. */
  mount?: MountMap;
  /** `McpFactory.create(App, { mountSeparator })`: wins over the root server's own. */
  mountSeparator?: string;
  /** The scopes of the servers mounting this one: every handler of this one needs them too. */
  scopes?: readonly string[];
  /** The servers mounting this one, outermost first (a cycle is refused). */
  ancestors?: readonly Constructor[];
}

/**
 * Scans a `@McpServer` class and its components into `registry`, then the servers it mounts (see
 * mount.ts). `closed`: the app validates with `forbidNonWhitelisted`, so tool input schemas refuse
 * unknown keys too (see {@link register}).
 * @internal
 */
export function scanServer(serverClass: Constructor, container: DependencyContainer, registry: Registry, closed = false, mounts: ScanMounts = {}): ScanResult {
  const options = serverOptionsOf(serverClass);
  if (!options) {
    throw new HermesError(
      'HERMES_NOT_A_SERVER',
      `${serverClass.name || 'the class'} has no @McpServer decorator. Add @McpServer({ name, version }) to it, or pass an object implementing McpHandler.`,
    );
  }
  if (typeof options.name !== 'string' || !options.name || typeof options.version !== 'string' || !options.version) {
    throw new HermesError('HERMES_INVALID_OPTIONS', `@McpServer on ${serverClass.name} needs a non-empty \`name\` and \`version\`.`);
  }
  serverSchemas.set(registry, checkSchemaOptions(options.schemas, `@McpServer on ${serverClass.name}`));
  const serverMiddleware = resolveMiddleware(options.use ?? [], container, serverClass.name);
  const classes = [serverClass, ...(options.components ?? [])];
  const warnings = new Map<string, SchemaWarning>();
  const instances = classes.map((cls) => {
    if (typeof cls !== 'function') {
      throw new HermesError('HERMES_INVALID_OPTIONS', `@McpServer on ${serverClass.name}: every entry of \`components\` must be a class.`);
    }
    const instance = instantiate(cls, container);
    const classMiddleware = [...serverMiddleware, ...resolveMiddleware(middlewareOf(cls), container, cls.name)];
    for (const meta of handlersOf(cls)) {
      const explicit = (meta.options as ToolOptions).input ?? (meta.options as ResourceOptions).params ?? (meta.options as PromptOptions).args;
      // A tool with a verbatim `inputSchema` needs no class: an unreadable parameter type gets the raw arguments.
      const lenient = meta.kind === 'resource' || meta.kind === 'app' || (meta.options as ToolOptions).inputSchema !== undefined;
      const invocation = invocationOf(
        cls,
        instance as object,
        meta.method,
        explicit,
        meta.kind === 'app' ? 'appResource' : meta.kind,
        meta.kind === 'tool' ? 'input' : meta.kind === 'prompt' ? 'args' : 'params',
        lenient,
      );
      const middleware = [...classMiddleware, ...resolveMiddleware(middlewareOf(cls, meta.method), container, invocation.owner)];
      const wrapped: Invocation = { ...invocation, call: compose(middleware, invocation.call) as Invocation['call'], middleware: middleware.length > 0 ? middleware : undefined };
      const scopes = unionOfScopes(mounts.scopes, options.scopes, requiredScopesOf(cls), requiredScopesOf(cls, meta.method), meta.options.scopes);
      for (const warning of register(registry, meta.kind, { ...meta.options, name: meta.options.name ?? meta.method, scopes }, wrapped, closed)) {
        warnings.set(`${warning.code} ${warning.className}.${warning.property} ${warning.rule ?? ''}`, warning);
      }
    }
    return instance;
  });
  // For remote mounts (@hermes-mcp/gateway), added later: this server's separator, scope guard and middleware.
  const hostScopes = unionOfScopes(mounts.scopes, options.scopes);
  setMountHost(registry, {
    separator: mounts.mountSeparator ?? options.mountSeparator,
    guard: hostScopes.length > 0 ? scopeGuard(hostScopes, `the servers mounted by ${serverClass.name}`) : undefined,
    middleware: serverMiddleware,
  });
  const mounted = mountsOf(`@McpServer on ${serverClass.name}`, options.mount, mounts.mount);
  if (mounted.length > 0) {
    const owner = `@McpServer on ${serverClass.name}`;
    const separator = checkSeparator(mounts.mountSeparator ?? options.mountSeparator ?? '_', owner);
    const ancestors = [...(mounts.ancestors ?? []), serverClass];
    const scopes = unionOfScopes(mounts.scopes, options.scopes);
    // Around each mounted handler: this server's scopes (a caller without them runs nothing), then its middleware.
    const guard = scopes.length > 0 ? scopeGuard(scopes, `the servers mounted by ${serverClass.name}`) : undefined;
    for (const entry of mounted) {
      const mountedOptions = checkMountable(
        entry,
        owner,
        ancestors,
        typeof entry.server === 'function' ? serverOptionsOf(entry.server) : undefined,
        servesCodeSkills(entry.server),
      );
      const own = new Registry(registry.pageSize, new CursorCodec());
      const scan = scanServer(entry.server, container, own, closed, { scopes, ancestors });
      for (const warning of scan.warnings) warnings.set(`${warning.code} ${warning.className}.${warning.property} ${warning.rule ?? ''}`, warning);
      mountInto(registry, { registry: own, options: mountedOptions }, entry, separator, guard, serverMiddleware);
    }
  }
  for (const tool of registry.allTools()) checkAppLink(registry, tool.descriptor._meta, tool.owner);
  return { options, instances, warnings: [...warnings.values()] };
}

/** Whether a server class or one of its components has `@Skill` methods (a mounted server may not). */
function servesCodeSkills(serverClass: Constructor): boolean {
  if (typeof serverClass !== 'function') return false;
  const options = serverOptionsOf(serverClass);
  return [serverClass, ...(options?.components ?? [])].some((cls) => typeof cls === 'function' && Reflect.getMetadata(SKILL_METHODS, cls) !== undefined);
}

/** The handler metadata of a class and its base classes; a subclass's method wins. */
function handlersOf(cls: Function): HandlerMetadata[] {
  const result: HandlerMetadata[] = [];
  const overridden = new Set<string>();
  for (let c: Function | null = cls; c && c !== Function.prototype; c = Object.getPrototypeOf(c) as Function | null) {
    const own = (Reflect.getOwnMetadata(HANDLERS, c) as HandlerMetadata[] | undefined) ?? [];
    const declaredHere = own.filter((meta) => !overridden.has(meta.method));
    result.push(...declaredHere);
    for (const meta of own) overridden.add(meta.method);
  }
  return result;
}

/**
 * Adds one handler to the registry from its decorator options and how to call it; used by the
 * scanner and by the app's runtime `add*` methods alike. Returns the warnings about the classes
 * whose schemas it built (a tool's input and output, a prompt's arguments), for the caller to log.
 * `closed`: inputs are validated with `forbidNonWhitelisted`, which refuses unknown keys, so a
 * tool's built input schema says `additionalProperties: false` (see {@link closedObjectSchema}).
 * @internal
 */
export function register(
  registry: Registry,
  kind: HandlerKind,
  options: (ToolOptions | ResourceOptions | AppResourceOptions | PromptOptions) & { name: string },
  invocation: Invocation,
  closed = false,
): SchemaWarning[] {
  checkScopes(options.scopes, invocation.owner);
  // Scopes are a guard in front of everything else: a caller without them runs none of the middleware.
  if (options.scopes !== undefined && options.scopes.length > 0) {
    const guard = scopeGuard(options.scopes, `the ${kind} "${options.name}"`);
    invocation = { ...invocation, call: compose([guard], invocation.call) as Invocation['call'], middleware: [guard, ...(invocation.middleware ?? [])] };
  }
  switch (kind) {
    case 'tool': {
      const schemas = { ...serverSchemas.get(registry), ...checkSchemaOptions((options as ToolOptions).schemas, invocation.owner) };
      const tool = toolDefinition(options as ToolOptions & { name: string }, invocation, closed, schemas);
      const warnings = warningsOf((options as ToolOptions).inputSchema === undefined ? invocation.inputClass : undefined, tool.outputClass);
      registry.addTool(tool);
      return warnings;
    }
    case 'resource':
      registerResource(registry, options as ResourceOptions & { name: string }, invocation);
      return [];
    case 'app': {
      const app = appResourceOf(options as AppResourceOptions & { name: string }, invocation.owner);
      registerResource(registry, app.options, invocation, app.contentMeta);
      return [];
    }
    case 'prompt': {
      const prompt = promptDefinition(options, invocation);
      const warnings = warningsOf(invocation.inputClass);
      registry.addPrompt(prompt);
      return warnings;
    }
  }
}

/**
 * The schema warnings of an input class (a tool's input, a prompt's arguments) and an output class,
 * whose schemas are built already. An input with `@IsDate()` and no `@Type(() => Date)` is refused:
 * JSON has no dates, so no call could pass. An output holds Dates, and may.
 */
function warningsOf(input: Function | undefined, output?: Function): SchemaWarning[] {
  const found = input ? schemaWarningsFor(input) : [];
  const date = found.find((warning) => warning.code === 'HERMES_DATE_WITHOUT_TYPE');
  if (date) throw new HermesError('HERMES_DATE_WITHOUT_TYPE', date.message);
  const produced = output ? schemaWarningsFor(output).filter((warning) => warning.code !== 'HERMES_DATE_WITHOUT_TYPE') : [];
  return [...found, ...produced];
}

/**
 * `closed`: inputs are validated with `forbidNonWhitelisted` (input schemas closed); `schemas`: the
 * server's `schemas` with the tool's own over them.
 */
function toolDefinition(options: ToolOptions & { name: string }, invocation: Invocation, closed: boolean, schemas: SchemaOptions): ToolDefinition {
  const name = options.name;
  if (!TOOL_NAME.test(name)) {
    throw new HermesError(
      'HERMES_INVALID_NAME',
      `${invocation.owner}: the tool name "${name}" must be 1–128 characters of A–Z, a–z, 0–9, "_", "-" or "." (set \`name\` on @Tool).`,
    );
  }
  const meta = toolMetaOf(options, invocation.owner);
  const nested = { nested: schemas.nested };
  const output = options.output && checkClass(options.output, invocation.owner, 'output');
  if (output && schemas.closedOutput === true) invocation = { ...invocation, call: closedOutputCall(invocation.call, output, invocation.owner) };
  const descriptor: Tool = {
    name,
    ...(options.title !== undefined && { title: options.title }),
    ...(options.description !== undefined && { description: options.description }),
    inputSchema:
      options.inputSchema !== undefined
        ? verbatimSchema(options.inputSchema, invocation.owner)
        : invocation.inputClass
          ? (closed ? closedObjectSchema : buildObjectSchema)(invocation.inputClass, nested)
          : emptyObjectSchema(),
    ...(output && { outputSchema: (schemas.closedOutput === true ? closedObjectSchema : buildObjectSchema)(output, nested) }),
    ...(options.annotations && { annotations: options.annotations }),
    ...(options.icons && { icons: options.icons }),
    ...(meta && { _meta: meta }),
  };
  return {
    ...invocation,
    name,
    descriptor,
    outputClass: options.output,
    mimeType: options.mimeType,
    timeout: options.timeout,
    task: options.task,
    taskStart: options.taskStart,
    enabled: true,
  };
}

/** `schemas` of `@McpServer` or `@Tool`, checked: `{}` when not given. */
function checkSchemaOptions(schemas: SchemaOptions | undefined, owner: string): SchemaOptions {
  if (schemas === undefined) return {};
  if (typeof schemas !== 'object' || schemas === null || Array.isArray(schemas)) {
    throw new HermesError('HERMES_INVALID_OPTIONS', `${owner}: \`schemas\` must be an object ({ nested?: 'inline' | 'defs', closedOutput?: boolean }).`);
  }
  if (schemas.nested !== undefined && schemas.nested !== 'inline' && schemas.nested !== 'defs') {
    throw new HermesError(
      'HERMES_INVALID_OPTIONS',
      `${owner}: \`schemas.nested\` is 'inline' (nested classes written out, the default) or 'defs', not ${JSON.stringify(schemas.nested)}.`,
    );
  }
  if (schemas.closedOutput !== undefined && typeof schemas.closedOutput !== 'boolean') {
    throw new HermesError('HERMES_INVALID_OPTIONS', `${owner}: \`schemas.closedOutput\` must be true or false.`);
  }
  return schemas;
}

/**
 * A tool's call for `closedOutput`: its published `outputSchema` refuses keys the output class
 * does not declare, at every level, so the result is held to that before the server's usual output
 * check (which lets such keys through): the `structuredContent` it makes is validated with
 * `forbidNonWhitelisted`, and a key no rule names fails the call with `HERMES_OUTPUT_INVALID`, as
 * any output that does not match does (logged; the client gets a tool error).
 */
function closedOutputCall(call: Invocation['call'], output: Function, owner: string): Invocation['call'] {
  const refused = (checked: ValidationResult<object>, value: unknown): unknown => {
    if (checked.ok) return value;
    throw new HermesError('HERMES_OUTPUT_INVALID', `${owner} returned output that does not match ${output.name}: ${formatIssues(checked.issues)}`);
  };
  const check = (value: unknown): unknown => {
    let structured: Record<string, unknown> | undefined;
    try {
      const result = toCallToolResult(value);
      if (result.isError !== true) structured = result.structuredContent;
    } catch {
      return value; // not a result: the engine says so
    }
    if (!structured) return value; // no structured content: the engine's own check refuses it
    const checked = validateInputNow(output as new () => object, structured, { forbidNonWhitelisted: true });
    return isThenable(checked) ? Promise.resolve(checked).then((settled) => refused(settled, value)) : refused(checked, value);
  };
  return (input, ctx) => {
    const value = call(input, ctx);
    return isThenable(value) ? Promise.resolve(value).then(check) : check(value);
  };
}

/** A copy of a tool's own `inputSchema`, kept as written; MCP requires an object schema at its root. */
function verbatimSchema(schema: JsonSchemaObject, owner: string): JsonSchemaObject {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema) || schema.type !== 'object') {
    throw new HermesError(
      'HERMES_INVALID_OPTIONS',
      `${owner}: \`inputSchema\` must be a JSON Schema whose root is { type: 'object', ... } (MCP requires an object schema for tool input).`,
    );
  }
  return structuredClone(schema);
}

function registerResource(registry: Registry, options: ResourceOptions & { name: string }, invocation: Invocation, contentMeta?: Meta): void {
  const owner = invocation.owner;
  if (!options || typeof options.uri !== 'string' || !options.uri) {
    throw new HermesError('HERMES_INVALID_OPTIONS', `${owner}: @Resource needs a \`uri\` (e.g. 'notes://all' or 'notes://note/{id}').`);
  }
  const common = {
    name: options.name,
    ...(options.title !== undefined && { title: options.title }),
    ...(options.description !== undefined && { description: options.description }),
    ...(options.mimeType !== undefined && { mimeType: options.mimeType }),
    ...(options.annotations && { annotations: options.annotations }),
    ...(options.icons && { icons: options.icons }),
    ...(options._meta && { _meta: options._meta }),
  };
  if (isUriTemplate(options.uri)) {
    const template = compileUriTemplate(options.uri);
    const descriptor: ResourceTemplate = { uriTemplate: options.uri, ...common };
    const completers = completersFor(invocation.inputClass, options.complete, template.variables);
    registry.addTemplate({ ...invocation, template, descriptor, completers, cache: options.cache, enabled: true });
    return;
  }
  if (!URL.canParse(options.uri)) {
    throw new HermesError('HERMES_INVALID_URI_TEMPLATE', `${owner}: "${options.uri}" is not an absolute URI (e.g. 'notes://all').`);
  }
  const descriptor: Resource = { uri: options.uri, ...common, ...(options.size !== undefined && { size: options.size }) };
  registry.addResource({ ...invocation, uri: options.uri, descriptor, cache: options.cache, contentMeta, enabled: true });
}

function promptDefinition(options: PromptOptions & { name: string }, invocation: Invocation): PromptDefinition {
  const args = invocation.inputClass ? promptArgumentsFor(invocation.inputClass) : [];
  const descriptor: Prompt = {
    name: options.name,
    ...(options.title !== undefined && { title: options.title }),
    ...(options.description !== undefined && { description: options.description }),
    ...(args.length > 0 && { arguments: args }),
    ...(options.icons && { icons: options.icons }),
    ...(options._meta && { _meta: options._meta }),
  };
  const completers = completersFor(invocation.inputClass, options.complete);
  return { ...invocation, name: options.name, descriptor, completers, enabled: true };
}

/**
 * Works out where the input and the context go in the method's parameters, and which class the
 * input is validated into. The context is the parameter marked `@Ctx()`, else the one typed
 * `McpContext`, else the second one; the input is the first other parameter.
 *
 * `lenient`: an input whose class cannot be read receives the raw value instead of failing — the
 * template variables of a resource (all strings, already checked by the template), or the
 * arguments of a tool that gives its own `inputSchema`.
 */
function invocationOf(cls: Function, instance: object, method: string, explicit: Function | undefined, kind: string, option: string, lenient = false): Invocation {
  const owner = `${cls.name}.${method}`;
  const fn = (instance as Record<string, unknown>)[method];
  if (typeof fn !== 'function') {
    throw new HermesError('HERMES_INVALID_OPTIONS', `${owner}: @${capitalize(kind)} must decorate a method.`);
  }
  const types = (Reflect.getMetadata('design:paramtypes', cls.prototype as object, method) as unknown[] | undefined) ?? [];
  const arity = Math.max(fn.length, types.length);
  const marked = Reflect.getMetadata(CTX_PARAM, cls, method) as number | undefined;
  const typed = types.indexOf(McpContext);
  const ctxIndex = marked ?? (typed >= 0 ? typed : arity >= 2 ? 1 : -1);
  let inputIndex = -1;
  for (let i = 0; i < arity; i++) {
    if (i !== ctxIndex) {
      inputIndex = i;
      break;
    }
  }
  let inputClass: Function | undefined = explicit ? checkClass(explicit, owner, option) : undefined;
  if (!inputClass && inputIndex >= 0) {
    const declared = types[inputIndex];
    if (!NOT_A_CLASS.has(declared) && typeof declared === 'function') inputClass = declared;
    else if (!lenient) throw unresolved(owner, kind, option, inputIndex, declared);
  }
  const bound = (fn as (...args: unknown[]) => unknown).bind(instance);
  return { owner, call: caller(bound, inputIndex, ctxIndex), inputClass: inputClass as Constructor | undefined };
}

/** Calls `bound` with the input and the context where its parameters want them; the usual layouts without an arguments array. */
function caller(bound: (...args: unknown[]) => unknown, inputIndex: number, ctxIndex: number): (input: unknown, ctx: unknown) => unknown {
  const size = Math.max(ctxIndex, inputIndex) + 1;
  if (size === 0) return () => bound();
  if (inputIndex === 0 && ctxIndex === 1) return (input, ctx) => bound(input, ctx);
  if (inputIndex === 0 && ctxIndex < 0) return (input) => bound(input);
  if (ctxIndex === 0 && inputIndex < 0) return (_input, ctx) => bound(ctx);
  if (ctxIndex === 0 && inputIndex === 1) return (input, ctx) => bound(ctx, input);
  return (input, ctx) => {
    const args = new Array<unknown>(size);
    if (inputIndex >= 0) args[inputIndex] = input;
    if (ctxIndex >= 0) args[ctxIndex] = ctx;
    return bound(...args);
  };
}

function checkClass(value: Function, owner: string, option: string): Function {
  if (typeof value !== 'function' || NOT_A_CLASS.has(value)) {
    throw new HermesError('HERMES_INVALID_OPTIONS', `${owner}: \`${option}\` must be a class decorated with class-validator decorators.`);
  }
  return value;
}

function unresolved(owner: string, kind: string, option: string, index: number, declared: unknown): HermesError {
  const seen =
    declared === undefined
      ? 'no type metadata (compiled without emitDecoratorMetadata, e.g. by esbuild or tsx?)'
      : `the type \`${(declared as Function).name}\` (an interface, type alias or primitive?)`;
  return new HermesError(
    'HERMES_UNRESOLVED_TYPE',
    `${owner}: cannot tell the class of parameter ${index + 1} — found ${seen}. ` +
      `Declare it as a class with class-validator decorators and compile with emitDecoratorMetadata, ` +
      `or name it explicitly: @${capitalize(kind)}({ ${option}: MyClass }).`,
  );
}

function capitalize(word: string): string {
  return word[0].toUpperCase() + word.slice(1);
}
