/**
 * Remote mounts: an upstream MCP server — a command spawned over stdio, or a URL (Streamable HTTP,
 * HTTP+SSE, WebSocket), in whichever era it speaks — served as part of a decorated Hermes server,
 * under a namespace, next to the app's own tools. Its tools, resources, templates and prompts are
 * listed once (every page) and kept in the app's registry under the names local mounts give
 * (`<ns>_<name>`, `scheme://<ns>/rest`, the app's `mountSeparator`), so core serves, pages, guards
 * and caches them as the app's own; the upstream's `list_changed` lists them again, and core tells
 * the clients. Each call goes through an {@link UpstreamProxy} (the proxy's own forwarding: its
 * upstream connections, progress, cancellation, log messages, `_meta`, the upstream's questions to
 * the client whose request caused them, 2026-07-28 input rounds), with the name or URI the upstream
 * knows. Core never imports this: the gateway depends on core and on the client, not the reverse.
 */
import type { McpApp, McpContext, PromptDefinition, Registry, ResourceDefinition, ResourceTemplateDefinition, ToolDefinition } from '@hermes-mcp/core';
import { HermesError } from '@hermes-mcp/core';
import { checkNamespace, checkSeparator, compileUriTemplate, mountHostOf, mountedName, mountedUri, unmountedUri, wrapMounted } from '@hermes-mcp/core/internal';
import type { MountHost } from '@hermes-mcp/core/internal';
import type { McpClient } from '@hermes-mcp/client';
import { McpError, isRecord } from '@hermes-mcp/protocol';
import type { Prompt, Resource, ResourceTemplate, Tool } from '@hermes-mcp/protocol';
import { GATEWAY_ERRORS, GatewayErrorCode, gatewayError } from './errors';
import { UpstreamProxy, UpstreamProxyOptions, servedTool } from './proxy';
import type { UpstreamConnection, UpstreamSpec } from './upstream';

/** Options of {@link mountRemote}: the upstream connections' options, the separator and the per-call timeout. */
export interface RemoteMountOptions extends UpstreamProxyOptions {
  /**
   * What goes between the namespace and a tool's or prompt's name. Default: the app's own
   * `mountSeparator` (`McpFactory.create`'s option, else its `@McpServer`'s), else `_`; the same
   * rules as local mounts' (1–16 of `A-Z a-z 0-9 _ - .`).
   */
  separator?: string;
  /**
   * Milliseconds one forwarded request may take (default: none of its own; the connection's
   * `requestTimeout`, 5 minutes, applies). Past it the request is cancelled upstream and a tool
   * answers a tool error `GATEWAY_UPSTREAM_TIMEOUT` (a read or a prompt: that error, -32603).
   */
  timeout?: number;
}

/** A mounted upstream, as {@link mountRemote} returns it. */
export interface RemoteMount {
  /** The namespace it is mounted at. */
  readonly namespace: string;
  /** The upstream's name in errors and logs (`options.name`, default the namespace). */
  readonly name: string;
  /** Lists the upstream's tools, resources, templates and prompts again (its `list_changed` does it by itself). */
  refresh(): Promise<void>;
  /** Takes its definitions out of the app (clients are told the lists changed) and closes its upstream connections. */
  close(): Promise<void>;
}

type ListKind = 'tools' | 'resources' | 'prompts';

/** The mount's definitions in the app's registry, by list, with the keys clients see. */
interface Owned {
  tools: Set<string>;
  resources: Set<string>;
  prompts: Set<string>;
}

/**
 * Mounts the upstream `spec` into `app` (a decorated server) at `namespace`: connects to it, lists
 * everything it serves and adds it to the app under the namespace. Rejects when the upstream cannot
 * be reached now (`GATEWAY_UPSTREAM_UNAVAILABLE`), when `app` is not a decorated server or the
 * namespace or separator is not one local mounts take (`HERMES_MOUNT_INVALID`), or when a name is
 * one the app already serves (`HERMES_MOUNT_COLLISION`). Afterwards an upstream that fails makes
 * only its own calls fail (a tool error `GATEWAY_UPSTREAM_CLOSED`, `…_UNAVAILABLE` or
 * `…_TIMEOUT`); it is started again, with backoff, by the next call.
 *
 * The app's scope guard and `use` middleware wrap every mounted definition as they wrap local
 * mounts'; the upstream gets the gateway's own credentials (`headers` of a URL spec), never the
 * caller's token.
 *
 * @example
 * const app = McpFactory.create(ShopServer);
 * await mountRemote(app, 'weather', { command: 'node', args: ['weather/dist/main.js'] });
 * await mountRemote(app, 'search', { url: 'https://search.example.com/mcp', headers: { authorization: `Bearer ${token}` } });
 * await app.listen(); // tools: status, weather_forecast, search_query, …
 */
export async function mountRemote(app: McpApp, namespace: string, spec: UpstreamSpec, options: RemoteMountOptions = {}): Promise<RemoteMount> {
  const owner = `mountRemote("${String(namespace)}")`;
  checkNamespace(namespace, owner);
  const registry = app.registry;
  const host = registry && mountHostOf(registry);
  if (!registry || !host) {
    throw new HermesError('HERMES_MOUNT_INVALID', `${owner}: remote mounts go into a decorated server (McpFactory.create(App)); an McpHandler answers every request itself.`);
  }
  const separator = checkSeparator(options.separator ?? host.separator ?? '_', owner);
  if (options.timeout !== undefined && (!Number.isFinite(options.timeout) || options.timeout <= 0)) {
    throw new HermesError('HERMES_INVALID_OPTIONS', `${owner}: \`timeout\` must be a positive number of milliseconds.`);
  }
  const { separator: _separator, timeout: _timeout, ...proxyOptions } = options;
  const proxy = await UpstreamProxy.create(spec, { ...proxyOptions, name: options.name ?? namespace });
  const mount = new Mounted(app, registry, host, proxy, namespace, separator, options);
  try {
    await mount.refresh(true);
  } catch (error) {
    await mount.close();
    throw error;
  }
  return mount;
}

/** One remote mount: its definitions in the registry, kept in step with the upstream's lists. */
class Mounted implements RemoteMount {
  readonly name: string;
  private readonly owned: Owned = { tools: new Set(), resources: new Set(), prompts: new Set() };
  /** What each list held when last listed (its descriptors as JSON), to tell a change from the same list. */
  private readonly listed: Partial<Record<ListKind, string>> = {};
  /** The listing of each list running now, and whether another was asked meanwhile. */
  private readonly listing = new Map<ListKind, { running: Promise<void>; again: boolean }>();
  private closed = false;
  private relisting = false;
  /** Stops passing the clients' roots changes on. */
  private readonly stopRoots: () => void;
  /** Stops passing the clients' subscriptions on. */
  private readonly stopSubscriptions: () => void;

  constructor(
    private readonly app: McpApp,
    private readonly registry: Registry,
    private readonly host: MountHost,
    private readonly proxy: UpstreamProxy,
    readonly namespace: string,
    private readonly separator: string,
    private readonly options: RemoteMountOptions,
  ) {
    this.name = options.name ?? namespace;
    // The upstream's list changes list it again (core then tells the clients); its resource updates reach the prefixed URI's subscribers.
    proxy.attach({
      notifyListChanged: (list: ListKind) => void this.list(list).catch((error: unknown) => this.warn(`listing its ${list} again failed`, error)),
      notifyResourceUpdated: (uri: string) => {
        const prefixed = mountedUri(namespace, uri);
        if (prefixed !== undefined) app.notifyResourceUpdated(prefixed);
      },
    });
    // A session's roots changed: its upstream connection is told (and asks them of that client again).
    this.stopRoots = app.onNotification('notifications/roots/list_changed', (notification, ctx) => proxy.handleNotification(notification, ctx));
    // A client subscribes to a URI of this mount: the upstream is subscribed to its own URI (once, on
    // the shared connection), so that its updates come; its refusal fails the client's subscription.
    this.stopSubscriptions = app.onSubscribe(async (uri) => {
      const own = unmountedUri(namespace, uri);
      if (own !== undefined && !this.closed) await this.shared().subscribe(own);
    });
  }

  /** `strict` (at mount): a name the app serves already fails the mount instead of being left out. */
  async refresh(strict = false): Promise<void> {
    const capabilities = (await this.shared().describe()).capabilities;
    await Promise.all([
      capabilities.tools ? this.list('tools', strict) : undefined,
      capabilities.resources ? this.list('resources', strict) : undefined,
      capabilities.prompts ? this.list('prompts', strict) : undefined,
    ]);
  }

  /**
   * After a call found the upstream gone: start it again now (past the connection's backoff) and
   * list it again — a restarted process serves what it serves at start, not what it added since.
   * One at a time; a failure is logged, and the next failed call tries again.
   */
  private relist(): void {
    if (this.relisting || this.closed) return;
    this.relisting = true;
    void this.refresh()
      .catch((error: unknown) => this.warn('listing it again after it failed did not succeed (the next call tries again)', error))
      .finally(() => (this.relisting = false));
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopRoots();
    this.stopSubscriptions();
    for (const kind of ['tools', 'resources', 'prompts'] as const) this.replace(kind, []);
    await this.proxy.close();
  }

  /** The proxy's connection shared by stateless requests: the one lists and completions use. */
  private shared(): UpstreamConnection {
    // The proxy's own connection: no second process for a command upstream.
    return this.proxy.sharedConnection;
  }

  /** Lists `kind` again (one listing at a time per list; one more when asked meanwhile). */
  private list(kind: ListKind, strict = false): Promise<void> {
    const current = this.listing.get(kind);
    if (current) {
      current.again = true;
      return current.running;
    }
    const state = { running: Promise.resolve(), again: false };
    state.running = (async () => {
      try {
        do {
          state.again = false;
          const client = await this.shared().client();
          this.replace(kind, await this.fetch(client, kind), strict);
        } while (state.again && !this.closed);
      } finally {
        this.listing.delete(kind);
      }
    })();
    this.listing.set(kind, state);
    return state.running;
  }

  /** Every page of `kind` from the upstream, as definitions of the app. */
  private async fetch(client: McpClient, kind: ListKind): Promise<Definition[]> {
    if (kind === 'tools') {
      const tools = await client.listAllTools();
      this.proxy.learnTools(tools);
      return tools.map((tool) => this.tool(tool));
    }
    if (kind === 'prompts') return (await client.listAllPrompts()).map((prompt) => this.prompt(prompt));
    const [resources, templates] = await Promise.all([
      client.listAllResources(),
      client.serverCapabilities.resources
        ? client.listAllResourceTemplates().then(
            (all) => all,
            () => [] as ResourceTemplate[],
          )
        : [],
    ]);
    const found: Definition[] = [];
    for (const resource of resources) {
      const def = this.resource(resource);
      if (def) found.push(def);
    }
    for (const template of templates) {
      const def = this.template(template);
      if (def) found.push(def);
    }
    return found;
  }

  /**
   * Swaps this mount's definitions of `kind` for `next` (nothing changes, and clients are told
   * nothing, when the upstream lists the same). A key the app serves otherwise is left out and
   * logged — refused with `HERMES_MOUNT_COLLISION` when `strict`.
   */
  private replace(kind: ListKind, next: Definition[], strict = false): void {
    const owned = this.owned[kind];
    const registryKind = kind === 'tools' ? 'tool' : kind === 'prompts' ? 'prompt' : 'resource';
    const listed = JSON.stringify(next.map((def) => def.def.descriptor));
    if (!this.closed && owned.size > 0 && listed === this.listed[kind]) return;
    for (const key of owned) this.registry.remove(registryKind, key);
    owned.clear();
    this.listed[kind] = listed;
    if (this.closed) return;
    for (const def of next) {
      const key = keyOf(def);
      const existing = this.registry.find(registryKind, key);
      if (existing) {
        const message = `the ${registryKind} "${key}" of the upstream "${this.name}" mounted at "${this.namespace}" is served by ${existing.owner} already`;
        if (strict) {
          for (const added of owned) this.registry.remove(registryKind, added);
          owned.clear();
          throw new HermesError('HERMES_MOUNT_COLLISION', `${message}: rename that one, or mount the upstream under another namespace.`);
        }
        this.warn(`${message}; it is left out (HERMES_MOUNT_COLLISION)`);
        continue;
      }
      if (def.kind === 'tool') this.registry.addTool(def.def);
      else if (def.kind === 'prompt') this.registry.addPrompt(def.def);
      else if (def.kind === 'resource') this.registry.addResource(def.def);
      else this.registry.addTemplate(def.def);
      owned.add(key);
    }
  }

  private tool(tool: Tool): Definition {
    const name = mountedName(this.namespace, this.separator, tool.name);
    const call = async (input: unknown, ctx: McpContext): Promise<unknown> => {
      try {
        return await this.forward(ctx, { ...ctx.request.params, name: tool.name, arguments: input });
      } catch (error) {
        const code = gatewayCodeOf(error);
        if (code === undefined) throw error;
        // The upstream did not answer: a tool error the model can read, with its code.
        return { content: [{ type: 'text', text: (error as Error).message }], structuredContent: { code, upstream: this.name }, isError: true };
      }
    };
    const def: ToolDefinition = {
      owner: `${this.name} (remote, mounted at "${this.namespace}")`,
      ...wrapMounted(this.host, call as ToolDefinition['call']),
      name,
      descriptor: { ...servedTool(tool), name },
      // An upstream with the tasks extension may answer with a task: the proxy then runs one of the app's that follows it (ctx.runAsTask).
      ...(this.proxy.taskSupport && { task: 'optional' as const, taskStart: 'manual' as const }),
      enabled: true,
    };
    return { kind: 'tool', def };
  }

  private prompt(prompt: Prompt): Definition {
    const name = mountedName(this.namespace, this.separator, prompt.name);
    const call = (input: unknown, ctx: McpContext) => this.forward(ctx, { ...ctx.request.params, name: prompt.name, arguments: input });
    const completers = Object.fromEntries((prompt.arguments ?? []).map((argument) => [argument.name, this.completer({ type: 'ref/prompt', name: prompt.name }, argument.name)]));
    const def: PromptDefinition = {
      owner: `${this.name} (remote, mounted at "${this.namespace}")`,
      ...wrapMounted(this.host, call as PromptDefinition['call']),
      name,
      descriptor: { ...prompt, name },
      completers,
      enabled: true,
    };
    return { kind: 'prompt', def };
  }

  private resource(resource: Resource): Definition | undefined {
    const uri = mountedUri(this.namespace, resource.uri);
    if (uri === undefined) return this.unmountable(resource.uri);
    const def: ResourceDefinition = {
      owner: `${this.name} (remote, mounted at "${this.namespace}")`,
      ...wrapMounted(this.host, ((_input: unknown, ctx: McpContext) => this.read(ctx)) as ResourceDefinition['call']),
      uri,
      descriptor: { ...resource, uri },
      enabled: true,
    };
    return { kind: 'resource', def };
  }

  private template(template: ResourceTemplate): Definition | undefined {
    const pattern = mountedUri(this.namespace, template.uriTemplate);
    if (pattern === undefined) return this.unmountable(template.uriTemplate);
    let compiled;
    try {
      compiled = compileUriTemplate(pattern);
    } catch (error) {
      this.warn(`its template "${template.uriTemplate}" is left out`, error);
      return undefined;
    }
    const completers = Object.fromEntries(compiled.variables.map((variable) => [variable, this.completer({ type: 'ref/resource', uri: template.uriTemplate }, variable)]));
    const def: ResourceTemplateDefinition = {
      owner: `${this.name} (remote, mounted at "${this.namespace}")`,
      ...wrapMounted(this.host, ((_input: unknown, ctx: McpContext) => this.read(ctx)) as ResourceTemplateDefinition['call']),
      template: compiled,
      descriptor: { ...template, uriTemplate: pattern },
      completers,
      enabled: true,
    };
    return { kind: 'template', def };
  }

  /** A `resources/read` of a mounted URI: the upstream's own URI read, the contents' URIs given back prefixed. */
  private async read(ctx: McpContext): Promise<unknown> {
    const requested = String(ctx.request.params.uri);
    const own = unmountedUri(this.namespace, requested) ?? requested;
    const result = await this.forward(ctx, { ...ctx.request.params, uri: own });
    if (!Array.isArray(result.contents)) return result;
    const contents = (result.contents as unknown[]).map((item) =>
      isRecord(item) && typeof item.uri === 'string' ? { ...item, uri: mountedUri(this.namespace, item.uri) ?? item.uri } : item,
    );
    return { ...result, contents };
  }

  /** Completes one argument upstream, on the shared connection (`ref` as the upstream names it). */
  private completer(ref: { type: 'ref/prompt'; name: string } | { type: 'ref/resource'; uri: string }, argument: string) {
    return async (value: string, context: { arguments: Readonly<Record<string, string>> }): Promise<readonly string[]> => {
      const connection = this.shared();
      const client = await connection.client();
      if (!client.serverCapabilities.completions) return [];
      const completion = await client.complete(
        ref,
        { name: argument, value },
        { ...context.arguments },
        this.options.timeout ? { signal: AbortSignal.timeout(this.options.timeout) } : undefined,
      );
      return completion.values;
    };
  }

  /**
   * Forwards the request of `ctx` with `params` (the upstream's own name or URI) through the
   * proxy: the context as it is (its signal, progress, log messages, questions, session), but the
   * request the upstream is to get, and with {@link RemoteMountOptions.timeout} a signal that
   * also ends at it.
   */
  private async forward(ctx: McpContext, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    const deadline = this.options.timeout === undefined ? undefined : AbortSignal.timeout(this.options.timeout);
    try {
      return await this.proxy.handleRequest(ctx, { ...ctx.request, params }, deadline ? AbortSignal.any([ctx.signal, deadline]) : ctx.signal);
    } catch (error) {
      const code = gatewayCodeOf(error);
      if (code === 'GATEWAY_UPSTREAM_CLOSED' || code === 'GATEWAY_UPSTREAM_UNAVAILABLE') this.relist();
      if (deadline?.aborted && !ctx.signal.aborted) {
        throw gatewayError(
          'GATEWAY_UPSTREAM_TIMEOUT',
          this.name,
          `the upstream "${this.name}" did not answer ${ctx.request.method} within ${this.options.timeout} ms; the request was cancelled upstream`,
        );
      }
      throw error;
    }
  }

  private unmountable(uri: string): undefined {
    this.warn(`its resource "${uri}" is left out: it has no scheme:// to put the namespace after`);
    return undefined;
  }

  private warn(message: string, error?: unknown): void {
    this.app.logger.warn({ upstream: this.name, namespace: this.namespace, ...(error !== undefined && { err: error }) }, `remote mount "${this.namespace}": ${message}`);
  }
}

type Definition =
  | { kind: 'tool'; def: ToolDefinition }
  | { kind: 'prompt'; def: PromptDefinition }
  | { kind: 'resource'; def: ResourceDefinition }
  | { kind: 'template'; def: ResourceTemplateDefinition };

function keyOf(definition: Definition): string {
  switch (definition.kind) {
    case 'tool':
    case 'prompt':
      return definition.def.name;
    case 'resource':
      return definition.def.uri;
    case 'template':
      return definition.def.template.template;
  }
}

/** The gateway's code of `error` (the upstream did not answer), if it is one of the gateway's errors. */
function gatewayCodeOf(error: unknown): GatewayErrorCode | undefined {
  if (!(error instanceof McpError) || !isRecord(error.data)) return undefined;
  const code = error.data.code;
  return typeof code === 'string' && Object.hasOwn(GATEWAY_ERRORS, code) ? (code as GatewayErrorCode) : undefined;
}
