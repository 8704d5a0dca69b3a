/**
 * Local mounts (`@McpServer({ mount })`, `McpFactory.create(App, { mount })`): other `@McpServer`
 * classes served as part of one. Each mounted server is scanned into a registry of its own, as if
 * it were served alone (its middleware, guards and scopes wrap its handlers as usual), then its
 * definitions are copied into the mounting server's registry once, at bootstrap: names and URIs
 * prefixed, each call wrapped in the mounting server's scopes and middleware. The engine answers
 * from the registry as for any other definition: nothing here runs for a server without mounts,
 * and a mounted handler's call allocates nothing more (see {@link Mount.wrap}).
 *
 * Naming (docs/compose.md): a tool or prompt `refund` of the server mounted at `billing` is
 * `billing_refund` (the separator is `mountSeparator`, `_` by default); a resource URI or template
 * gets the namespace as the first part after `://` — `invoices://{id}` → `invoices://billing/{id}`,
 * `ui://refund/view.html` → `ui://billing/refund/view.html` — so the scheme stays what it was (an
 * MCP App view is still `ui://`), a template still matches with the same variables, and the
 * original URI is the prefixed one with `<namespace>/` taken out after `://`.
 */
import { APP_RESOURCE_URI_META_KEY, isRecord, isThenable } from '@hermes-mcp/protocol';
import type { Meta } from '@hermes-mcp/protocol';
import type { Constructor } from '../container';
import type { McpContext } from '../context/mcp-context';
import { HermesError } from '../errors';
import type { McpServerOptions, Middleware, MountMap } from '../metadata/options';
import { compose } from '../engine/middleware';
import type { Invocation, PromptDefinition, Registry, ResourceDefinition, ResourceTemplateDefinition, ToolDefinition } from './registry';
import { compileUriTemplate } from './uri-template';

/** A namespace: 1–64 of `A-Z a-z 0-9 _ -` (it is part of tool names and of URIs). */
const NAMESPACE = /^[A-Za-z0-9_-]{1,64}$/;
/** A separator: 1–16 characters MCP allows in a tool name. */
const SEPARATOR = /^[A-Za-z0-9_.-]{1,16}$/;
/** Names MCP 2025-11-25 recommends for tools (as the scanner checks them). */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
/** A URI or template with a `scheme://` to put the namespace after. */
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/)([\s\S]*)$/;

/** One server to mount. @internal */
export interface MountEntry {
  readonly namespace: string;
  readonly server: Constructor;
}

/** What scanning a mounted server gave: its registry and its `@McpServer` options. @internal */
export interface MountedScan {
  readonly registry: Registry;
  readonly options: McpServerOptions;
}

/**
 * The mounts of a server: its decorator's `mount`, and for the root server those given to
 * `McpFactory.create`, merged (one namespace may be given in both only for the same class).
 * @internal
 */
export function mountsOf(owner: string, declared: MountMap | undefined, given: MountMap | undefined): MountEntry[] {
  const merged = new Map<string, Constructor>();
  for (const [where, map] of [
    ['@McpServer', declared],
    ['McpFactory.create', given],
  ] as const) {
    if (map === undefined) continue;
    if (!isRecord(map)) throw invalid(`${owner}: \`mount\` (${where}) must be an object of namespace → @McpServer class, e.g. { billing: BillingServer }.`);
    for (const [namespace, server] of Object.entries(map)) {
      if (!NAMESPACE.test(namespace)) {
        throw invalid(`${owner}: the mount namespace "${namespace}" must be 1–64 of A–Z, a–z, 0–9, "_" and "-" (it goes into tool names and URIs).`);
      }
      const existing = merged.get(namespace);
      if (existing !== undefined && existing !== server) {
        throw invalid(
          `${owner}: "${namespace}" is mounted twice, with ${nameOf(existing)} (@McpServer) and ${nameOf(server)} (McpFactory.create); mount one of them under another namespace.`,
        );
      }
      merged.set(namespace, server);
    }
  }
  return [...merged].map(([namespace, server]) => ({ namespace, server }));
}

/** The separator of a server's mounts, checked. */
export function checkSeparator(separator: unknown, owner: string): string {
  if (typeof separator !== 'string' || !SEPARATOR.test(separator)) {
    throw invalid(`${owner}: \`mountSeparator\` ${JSON.stringify(separator)} would make tool names MCP does not allow: use 1–16 of A–Z, a–z, 0–9, "_", "-" and "." (default "_").`);
  }
  return separator;
}

/** Checks that `server` can be mounted at `namespace` under `ancestors` (the servers mounting it, outermost first). @internal */
export function checkMountable(entry: MountEntry, owner: string, ancestors: readonly Constructor[], options: McpServerOptions | undefined, skillful: boolean): McpServerOptions {
  const { namespace, server } = entry;
  if (typeof server !== 'function' || !options) {
    throw invalid(
      `${owner}: the mount "${namespace}" is ${typeof server === 'function' ? `${nameOf(server)}, which has no @McpServer decorator` : 'not a class'}; mount a class decorated with @McpServer({ name, version }).`,
    );
  }
  if (ancestors.includes(server)) {
    throw invalid(
      `${owner}: mounting ${nameOf(server)} at "${namespace}" makes a cycle (${[...ancestors, server].map(nameOf).join(' → ')}); a server cannot mount itself, directly or through others.`,
    );
  }
  if (options.skills !== undefined || skillful) {
    throw invalid(
      `${owner}: ${nameOf(server)}, mounted at "${namespace}", serves skills; skills are served by the root server only: move its \`skills\` option and @Skill methods there.`,
    );
  }
  return options;
}

/**
 * Copies the definitions of a mounted server's registry into `registry`, prefixed, each wrapped
 * in the mounting server's scope guard (when it has scopes) and middleware. @internal
 */
export function mountInto(registry: Registry, scan: MountedScan, entry: MountEntry, separator: string, guard: Middleware | undefined, middleware: readonly Middleware[]): void {
  const mount = new Mount(entry.namespace, separator, nameOf(entry.server), guard, middleware);
  const { tools, resources, templates, prompts } = scan.registry.definitions();
  const cache = scan.options.cache;
  for (const def of tools) {
    const name = mount.name(def.name);
    if (!TOOL_NAME.test(name)) {
      throw new HermesError(
        'HERMES_INVALID_NAME',
        `${def.owner}, mounted at "${entry.namespace}": the tool name "${name}" must be 1–128 characters of A–Z, a–z, 0–9, "_", "-" or "." (a shorter namespace, separator or \`name\`).`,
      );
    }
    mount.check(registry, 'tool', name, def.owner);
    const _meta = mount.toolMeta(def.descriptor._meta);
    const tool: ToolDefinition = {
      ...def,
      ...mount.wrap(def, false),
      name,
      descriptor: { ...def.descriptor, name, ...(_meta && { _meta }) },
    };
    registry.addTool(tool);
  }
  for (const def of resources) {
    const uri = mount.uri(def.uri, def.owner);
    mount.check(registry, 'resource', uri, def.owner);
    const resource: ResourceDefinition = {
      ...def,
      ...mount.wrap(def, true),
      uri,
      descriptor: { ...def.descriptor, uri },
      ...((def.cache ?? cache) && { cache: def.cache ?? cache }),
    };
    registry.addResource(resource);
  }
  for (const def of templates) {
    const pattern = mount.uri(def.template.template, def.owner);
    mount.check(registry, 'resource', pattern, def.owner);
    const template: ResourceTemplateDefinition = {
      ...def,
      ...mount.wrap(def, true),
      template: compileUriTemplate(pattern),
      descriptor: { ...def.descriptor, uriTemplate: pattern },
      ...((def.cache ?? cache) && { cache: def.cache ?? cache }),
    };
    registry.addTemplate(template);
  }
  for (const def of prompts) {
    const name = mount.name(def.name);
    mount.check(registry, 'prompt', name, def.owner);
    const prompt: PromptDefinition = { ...def, ...mount.wrap(def, false), name, descriptor: { ...def.descriptor, name } };
    registry.addPrompt(prompt);
  }
}

/**
 * What a remote mount (`mountRemote` of @hermes-mcp/gateway) takes from the server it mounts into:
 * the separator of its mounts as given (unchecked; undefined for `_`), and the layer that wraps
 * every mounted definition — its scope guard, then its middleware. Recorded by the scanner.
 */
export interface MountHost {
  readonly separator?: string;
  readonly guard?: Middleware;
  readonly middleware: readonly Middleware[];
}

const hosts = new WeakMap<Registry, MountHost>();

/** Records how definitions mounted into `registry` are named and wrapped. @internal */
export function setMountHost(registry: Registry, host: MountHost): void {
  hosts.set(registry, host);
}

/** How definitions mounted into `registry` are named and wrapped (a server without `@McpServer`: none). */
export function mountHostOf(registry: Registry): MountHost | undefined {
  return hosts.get(registry);
}

/** A namespace, checked as local mounts check theirs (`HERMES_MOUNT_INVALID`). */
export function checkNamespace(namespace: unknown, owner: string): string {
  if (typeof namespace !== 'string' || !NAMESPACE.test(namespace)) {
    throw invalid(`${owner}: the mount namespace ${JSON.stringify(namespace)} must be 1–64 of A–Z, a–z, 0–9, "_" and "-" (it goes into tool names and URIs).`);
  }
  return namespace;
}

/** A mounted tool's or prompt's name as clients see it: `<namespace><separator><name>`. */
export function mountedName(namespace: string, separator: string, name: string): string {
  return `${namespace}${separator}${name}`;
}

/** A mounted URI or template as clients see it (`scheme://<namespace>/rest`); undefined without `scheme://`. */
export function mountedUri(namespace: string, uri: string): string | undefined {
  const match = SCHEME.exec(uri);
  return match ? `${match[1]}${namespace}/${match[2]}` : undefined;
}

/** The mounted server's own URI of one clients see (`<namespace>/` taken out after `://`); undefined when it is not of this mount. */
export function unmountedUri(namespace: string, uri: string): string | undefined {
  const match = SCHEME.exec(uri);
  return match && match[2].startsWith(`${namespace}/`) ? `${match[1]}${match[2].slice(namespace.length + 1)}` : undefined;
}

/** `call` wrapped in a host's layer (its scope guard, then its middleware), and that layer for lists to ask. */
export function wrapMounted(host: MountHost, call: Invocation['call']): Pick<Invocation, 'call' | 'middleware'> {
  const outer = host.guard ? [host.guard, ...host.middleware] : host.middleware;
  return { call: (outer.length > 0 ? compose(outer, call) : call) as Invocation['call'], middleware: outer.length > 0 ? outer : undefined };
}

/** One mounted server: how its names and URIs are prefixed, and how its calls are wrapped. */
class Mount {
  /** `prefixed` as a function a context carries (`ctx.mountedUri`), and its compositions with the mounts around it. */
  private readonly ownUri = (uri: string): string => (typeof uri === 'string' ? (this.prefixed(uri) ?? uri) : uri);
  private readonly chained = new Map<(uri: string) => string, (uri: string) => string>();
  /** The mounting server's scope guard, then its middleware. */
  private readonly outer: readonly Middleware[];

  constructor(
    readonly namespace: string,
    private readonly separator: string,
    private readonly className: string,
    guard: Middleware | undefined,
    private readonly middleware: readonly Middleware[],
  ) {
    this.outer = guard ? [guard, ...middleware] : middleware;
  }

  /** A tool's or prompt's name as the client sees it. */
  name(own: string): string {
    return `${this.namespace}${this.separator}${own}`;
  }

  /** A resource URI or template as the client sees it; refused when it has no `scheme://`. */
  uri(own: string, owner: string): string {
    const prefixed = this.prefixed(own);
    if (prefixed === undefined) {
      throw invalid(
        `${owner}, mounted at "${this.namespace}": "${own}" has no scheme:// to put the namespace after; give it a URI such as 'notes://${own.replace(/^[^:]*:/, '')}'.`,
      );
    }
    return prefixed;
  }

  /** `scheme://rest` → `scheme://<namespace>/rest`; undefined for a URI without `://`. */
  prefixed(uri: string): string | undefined {
    const match = SCHEME.exec(uri);
    return match ? `${match[1]}${this.namespace}/${match[2]}` : undefined;
  }

  /** Refuses a key the mounting server (or an earlier mount) already serves. */
  check(registry: Registry, kind: 'tool' | 'prompt' | 'resource', key: string, owner: string): void {
    const existing = registry.find(kind, key);
    if (!existing) return;
    const label = kind === 'resource' ? (key.includes('{') ? 'resource template' : 'resource URI') : kind;
    throw new HermesError(
      'HERMES_MOUNT_COLLISION',
      `the ${label} "${key}" is declared twice: by ${existing.owner} and by ${owner} (${this.className} mounted at "${this.namespace}"). ` +
        `Rename one of them (the \`name\`/\`uri\` option of its decorator), or mount ${this.className} under another namespace.`,
    );
  }

  /** A tool's `_meta` with its MCP App view (`ui.resourceUri`, a view of the mounted server) prefixed. */
  toolMeta(meta: Meta | undefined): Meta | undefined {
    const ui = meta?.ui;
    if (!meta || !isRecord(ui) || typeof ui.resourceUri !== 'string') return meta;
    const resourceUri = this.prefixed(ui.resourceUri) ?? ui.resourceUri;
    return { ...meta, ui: { ...ui, resourceUri }, ...(meta[APP_RESOURCE_URI_META_KEY] !== undefined && { [APP_RESOURCE_URI_META_KEY]: resourceUri }) };
  }

  /**
   * The call and middleware of a mounted definition: the mounting server's scope guard and
   * middleware around the mounted server's own (and its scope guard), which run with the request's
   * context as it is — the names and URIs the client sent — and `ctx.mountedUri` set, so that
   * `ctx.notifyResourceUpdated` with one of the mounted server's own URIs reaches the subscribers
   * of its prefixed form. One field of the request's own context, set per call: a mounted call
   * allocates nothing a direct one does not. When the mounting server has middleware of its own,
   * the field is put back once the mounted server is done, for what that middleware does after
   * `next()`. `contents`: a resource, whose returned contents get their URIs prefixed.
   */
  wrap(def: Invocation, contents: boolean): Pick<Invocation, 'call' | 'middleware'> {
    const own = def.call;
    const inner = contents ? (input: unknown, ctx: unknown) => this.prefixContents(own(input, ctx)) : own;
    const through = (input: unknown, ctx: McpContext): unknown => {
      if (ctx) ctx.mountedUri = this.uriFor(ctx.mountedUri);
      return inner(input, ctx);
    };
    const call = this.middleware.length > 0 ? compose(this.outer, restoring(through)) : compose(this.outer, through);
    // Lists ask both layers' middleware, outermost first, whether a caller sees the definition.
    const middleware = [...this.outer, ...(def.middleware ?? [])];
    return { call: call as Invocation['call'], middleware: middleware.length > 0 ? middleware : undefined };
  }

  /** This mount's URIs as clients see them, after the mounts around it (`around`, set by them) if any. */
  private uriFor(around: ((uri: string) => string) | undefined): (uri: string) => string {
    if (!around) return this.ownUri;
    let chained = this.chained.get(around);
    if (!chained) this.chained.set(around, (chained = (uri: string) => around(this.ownUri(uri))));
    return chained;
  }

  /** A resource's return value with the URIs of the contents it names prefixed (a plain value gets the requested URI later). */
  private prefixContents(value: unknown): unknown {
    if (isThenable(value)) return Promise.resolve(value).then((settled) => this.prefixContents(settled));
    if (Array.isArray(value)) return value.map((item) => this.prefixItem(item));
    if (isRecord(value) && Array.isArray(value.contents)) return { ...value, contents: value.contents.map((item) => this.prefixItem(item)) };
    return this.prefixItem(value);
  }

  private prefixItem(item: unknown): unknown {
    if (!isRecord(item) || typeof item.uri !== 'string' || !('text' in item || 'blob' in item)) return item;
    return { ...item, uri: this.prefixed(item.uri) ?? item.uri };
  }
}

/** `through`, with `ctx.mountedUri` put back as it was once it settled. */
function restoring(through: (input: unknown, ctx: McpContext) => unknown): (input: unknown, ctx: McpContext) => unknown {
  return (input, ctx) => {
    const before = ctx?.mountedUri;
    const back = (): void => {
      if (ctx) ctx.mountedUri = before;
    };
    let result: unknown;
    try {
      result = through(input, ctx);
    } catch (error) {
      back();
      throw error;
    }
    if (!isThenable(result)) {
      back();
      return result;
    }
    return Promise.resolve(result).finally(back);
  };
}

function invalid(message: string): HermesError {
  return new HermesError('HERMES_MOUNT_INVALID', message);
}

function nameOf(value: unknown): string {
  return typeof value === 'function' ? value.name || 'an anonymous class' : (JSON.stringify(value) ?? String(value));
}
