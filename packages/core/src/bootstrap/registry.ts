/**
 * The registry: resolved definitions of every tool, resource, template and prompt, built by the
 * scanner once at bootstrap and changed at runtime through the app (add, remove, enable, disable).
 * Shaped list arrays are built once per revision and reused until the registry changes; pages are
 * slices of them.
 */
import type { Meta, Prompt, ProtocolVersion, Resource, ResourceTemplate, RevisionFeatures, Tool } from '@hermes-mcp/protocol';
import type { Constructor } from '../container';
import type { CursorCodec } from './cursor';
import { HermesError } from '../errors';
import { shapePrompt, shapeResource, shapeTool } from '../results/shape';
import type { CacheHints, CompleteFn, Middleware, TaskStart, TaskSupport } from '../metadata/options';
import type { UriTemplate } from './uri-template';
import type { SkillsHost } from '../skills/host';
import type { ListKind } from '../context/mcp-context';

export type { ListKind };

/** How to call one handler. For the Hermes packages. */
export interface Invocation {
  /** `Class.method`, for messages and logs. */
  readonly owner: string;
  /** Calls the handler (through its middleware) with the input and the context. */
  readonly call: (input: unknown, ctx: unknown) => unknown;
  /** The class the input is validated into; undefined → the raw value is passed. */
  readonly inputClass?: Constructor;
  /**
   * The middleware `call` runs through (server, class, method), when there is any: list methods
   * run it too, to decide whether the caller sees the definition.
   */
  readonly middleware?: readonly Middleware[];
}

/** What every definition has: it can be switched off without being removed. */
interface Switchable {
  /** False while disabled: hidden from lists and refused as unknown. */
  enabled: boolean;
}

/** A resolved tool. */
export interface ToolDefinition extends Invocation, Switchable {
  readonly name: string;
  /** What `tools/list` shows (newest revision's shape). */
  readonly descriptor: Tool;
  readonly outputClass?: Constructor;
  readonly mimeType?: string;
  /** Milliseconds the tool may run before it is aborted and answered with a tool error. */
  readonly timeout?: number;
  /** Whether it runs as a task (MCP 2026-07-28 tasks extension). */
  readonly task?: TaskSupport;
  /** When it becomes a task: `auto` (at once) or `manual` (`ctx.runAsTask`). */
  readonly taskStart?: TaskStart;
}

/** A resolved static resource. */
export interface ResourceDefinition extends Invocation, Switchable {
  readonly uri: string;
  readonly descriptor: Resource;
  /** Caching hints of its reads (MCP 2026-07-28). */
  readonly cache?: CacheHints;
  /**
   * Set for an `@AppResource`: every content item it reads gets the resource's `mimeType` and this
   * `_meta` (its `ui`, `{}` without settings) where the handler set none.
   */
  readonly contentMeta?: Meta;
}

/** A resolved resource template. */
export interface ResourceTemplateDefinition extends Invocation, Switchable {
  readonly template: UriTemplate;
  readonly descriptor: ResourceTemplate;
  /** Caching hints of its reads (MCP 2026-07-28). */
  readonly cache?: CacheHints;
  /** Completion functions per template variable. */
  readonly completers: Readonly<Record<string, CompleteFn>>;
}

/** A resolved prompt. */
export interface PromptDefinition extends Invocation, Switchable {
  readonly name: string;
  readonly descriptor: Prompt;
  /** Completion functions per argument. */
  readonly completers: Readonly<Record<string, CompleteFn>>;
}

/** One page of a list. */
export interface Page<T> {
  items: readonly T[];
  nextCursor?: string;
}

/** What a list's definitions are called on the wire and in `ctx.listing`. */
export type ListedKind = 'tool' | 'resource' | 'template' | 'prompt';

/**
 * A whole list for one revision: the shaped items, and — when any definition has middleware —
 * each item's middleware and key, for the list methods to ask whether a caller sees it.
 */
export interface ShapedList<T> {
  readonly kind: ListedKind;
  readonly items: readonly T[];
  /** Per item: its middleware (undefined when it has none) and its name, URI or URI template. */
  readonly guarded?: ReadonlyArray<{ readonly middleware?: readonly Middleware[]; readonly key: string }>;
}

type Lists = { tools?: ShapedList<Tool>; resources?: ShapedList<Resource>; templates?: ShapedList<ResourceTemplate>; prompts?: ShapedList<Prompt> };

/** Everything a server offers, by name or URI. */
export class Registry {
  private readonly tools = new Map<string, ToolDefinition>();
  private readonly resources = new Map<string, ResourceDefinition>();
  private readonly templates = new Map<string, ResourceTemplateDefinition>();
  private readonly prompts = new Map<string, PromptDefinition>();
  private readonly lists = new Map<ProtocolVersion, Lists>();
  private changes = 0;
  /** Called after every change, with the list that changed. */
  onChange?: (kind: ListKind) => void;
  /** The skills of the `skills` option (SEP-2640), when set: their SKILL.md files join `resources/list`. */
  skills?: SkillsHost;

  /**
   * @param pageSize items per page of a list result (default 100)
   * @param cursors the codec that seals pagination cursors
   */
  constructor(
    readonly pageSize: number,
    private readonly cursors: CursorCodec,
  ) {}

  /** Adds a tool; a second tool of the same name is an error. */
  addTool(def: ToolDefinition): void {
    this.add(this.tools, def.name, def, 'tool', 'tools');
  }

  /** Adds a static resource; a second resource with the same URI is an error. */
  addResource(def: ResourceDefinition): void {
    this.add(this.resources, def.uri, def, 'resource URI', 'resources');
  }

  /** Adds a resource template; a second template with the same pattern is an error. */
  addTemplate(def: ResourceTemplateDefinition): void {
    this.add(this.templates, def.template.template, def, 'resource template', 'resources');
  }

  /** Adds a prompt; a second prompt of the same name is an error. */
  addPrompt(def: PromptDefinition): void {
    this.add(this.prompts, def.name, def, 'prompt', 'prompts');
  }

  /** The enabled tool of that name. */
  tool(name: string): ToolDefinition | undefined {
    const def = this.tools.get(name);
    return def?.enabled ? def : undefined;
  }

  /** The enabled prompt of that name. */
  prompt(name: string): PromptDefinition | undefined {
    const def = this.prompts.get(name);
    return def?.enabled ? def : undefined;
  }

  /** The enabled template with that pattern. */
  template(pattern: string): ResourceTemplateDefinition | undefined {
    const def = this.templates.get(pattern);
    return def?.enabled ? def : undefined;
  }

  /** The enabled static resource at `uri`, else the first enabled template that matches it. */
  resolveResource(uri: string): { def: ResourceDefinition | ResourceTemplateDefinition; variables: Record<string, string> } | undefined {
    const def = this.resources.get(uri);
    if (def?.enabled) return { def, variables: {} };
    for (const template of this.templates.values()) {
      if (!template.enabled) continue;
      const variables = template.template.match(uri);
      if (variables) return { def: template, variables };
    }
    return undefined;
  }

  /**
   * Finds any definition, enabled or not, for runtime changes: a tool or prompt by name, a
   * resource by URI, a template by its pattern.
   */
  find(kind: 'tool' | 'prompt' | 'resource', key: string): (Switchable & { owner: string }) | undefined {
    if (kind === 'tool') return this.tools.get(key);
    if (kind === 'prompt') return this.prompts.get(key);
    return this.resources.get(key) ?? this.templates.get(key);
  }

  /** Enables or disables a definition; true when that changed anything. */
  setEnabled(kind: 'tool' | 'prompt' | 'resource', key: string, enabled: boolean): boolean {
    const def = this.find(kind, key);
    if (!def || def.enabled === enabled) return false;
    def.enabled = enabled;
    this.changed(kind === 'tool' ? 'tools' : kind === 'prompt' ? 'prompts' : 'resources');
    return true;
  }

  /** Removes a definition; true when it existed. */
  remove(kind: 'tool' | 'prompt' | 'resource', key: string): boolean {
    const removed = kind === 'tool' ? this.tools.delete(key) : kind === 'prompt' ? this.prompts.delete(key) : this.resources.delete(key) || this.templates.delete(key);
    if (removed) this.changed(kind === 'tool' ? 'tools' : kind === 'prompt' ? 'prompts' : 'resources');
    return removed;
  }

  /**
   * How many times the registry changed (an add, a removal, a switch, a skills listing reloaded):
   * what was computed from it at another count is stale.
   */
  get version(): number {
    return this.changes;
  }

  /**
   * What the registry holds, enabled or not (a disabled definition can be enabled again): tools,
   * resources (static ones, templates, or the skills' files), prompts, and whether any prompt
   * argument or template variable completes. What a server declares (decorated-server.ts).
   */
  offers(): { tools: boolean; resources: boolean; prompts: boolean; completions: boolean } {
    const completes = (defs: Iterable<{ completers: Readonly<Record<string, unknown>> }>) => [...defs].some((def) => Object.keys(def.completers).length > 0);
    return {
      tools: this.tools.size > 0,
      resources: this.resources.size > 0 || this.templates.size > 0 || this.skills !== undefined,
      prompts: this.prompts.size > 0,
      completions: completes(this.prompts.values()) || completes(this.templates.values()),
    };
  }

  /** How many enabled definitions of each kind there are. */
  get counts(): { tools: number; resources: number; templates: number; prompts: number } {
    const enabled = (map: Map<string, Switchable>) => [...map.values()].filter((d) => d.enabled).length;
    return { tools: enabled(this.tools), resources: enabled(this.resources), templates: enabled(this.templates), prompts: enabled(this.prompts) };
  }

  /**
   * Every definition, enabled or not, in the order each kind was added: what a mount copies into
   * the mounting server's registry (mount.ts). @internal
   */
  definitions(): { tools: ToolDefinition[]; resources: ResourceDefinition[]; templates: ResourceTemplateDefinition[]; prompts: PromptDefinition[] } {
    return { tools: [...this.tools.values()], resources: [...this.resources.values()], templates: [...this.templates.values()], prompts: [...this.prompts.values()] };
  }

  /** The enabled tools, in the order they were added. */
  allTools(): ToolDefinition[] {
    return [...this.tools.values()].filter((t) => t.enabled);
  }

  /** The enabled static resources, in the order they were added. */
  allResources(): ResourceDefinition[] {
    return [...this.resources.values()].filter((r) => r.enabled);
  }

  /** The whole `tools/list` for a revision (cached until the registry changes). */
  listTools(f: RevisionFeatures): ShapedList<Tool> {
    return (this.cache(f.version).tools ??= shaped(
      'tool',
      this.tools,
      (t) => t.name,
      (t) => shapeTool(t.descriptor, f),
    ));
  }

  /** The whole `resources/list` for a revision. */
  listResources(f: RevisionFeatures): ShapedList<Resource> {
    return (this.cache(f.version).resources ??= withSkills(
      shaped(
        'resource',
        this.resources,
        (r) => r.uri,
        (r) => shapeResource(r.descriptor, f),
      ),
      this.skills?.catalog.listed,
    ));
  }

  /** Tells clients `resources/list` changed: the skills' listing did (a reload). */
  skillsChanged(): void {
    this.changed('resources');
  }

  /** The whole `resources/templates/list` for a revision. */
  listTemplates(f: RevisionFeatures): ShapedList<ResourceTemplate> {
    return (this.cache(f.version).templates ??= shaped(
      'template',
      this.templates,
      (t) => t.template.template,
      (t) => shapeResource(t.descriptor, f),
    ));
  }

  /** The whole `prompts/list` for a revision. */
  listPrompts(f: RevisionFeatures): ShapedList<Prompt> {
    return (this.cache(f.version).prompts ??= shaped(
      'prompt',
      this.prompts,
      (p) => p.name,
      (p) => shapePrompt(p.descriptor, f),
    ));
  }

  /**
   * The page of `all` a cursor points at (the first without one). A list that fits one page is
   * `all` itself. Cursors are sealed with the list's kind and hold an offset into the list as the
   * caller sees it.
   */
  page<T>(kind: ListedKind | 'skill' | `dir-${string}`, all: readonly T[], cursor: unknown): Page<T> {
    const start = cursor === undefined ? 0 : this.cursors.decode(kind, cursor);
    if (start === 0 && all.length <= this.pageSize) return { items: all };
    const end = start + this.pageSize;
    const items = all.slice(start, end);
    return end < all.length ? { items, nextCursor: this.cursors.encode(kind, end) } : { items };
  }

  private add<T extends Switchable & { owner: string }>(map: Map<string, T>, key: string, def: T, label: string, kind: ListKind): void {
    const existing = map.get(key);
    if (existing) throw duplicate(label, key, existing.owner, def.owner);
    map.set(key, def);
    this.changed(kind);
  }

  private changed(kind: ListKind): void {
    this.changes++;
    this.lists.clear();
    this.onChange?.(kind);
  }

  private cache(version: ProtocolVersion): Lists {
    let cache = this.lists.get(version);
    if (!cache) this.lists.set(version, (cache = {}));
    return cache;
  }
}

function shaped<D extends Switchable & { middleware?: readonly Middleware[] }, T>(
  kind: ListedKind,
  defs: Map<string, D>,
  key: (def: D) => string,
  shape: (def: D) => T,
): ShapedList<T> {
  const items: T[] = [];
  const guarded: Array<{ middleware?: readonly Middleware[]; key: string }> = [];
  let anyMiddleware = false;
  for (const def of defs.values()) {
    if (!def.enabled) continue;
    items.push(shape(def));
    guarded.push({ middleware: def.middleware, key: key(def) });
    if (def.middleware !== undefined) anyMiddleware = true;
  }
  Object.freeze(items);
  return anyMiddleware ? { kind, items, guarded } : { kind, items };
}

/** A resources list with the skills' SKILL.md resources after the registry's own (they have no middleware: every caller sees them). */
function withSkills(list: ShapedList<Resource>, skills: readonly Resource[] | undefined): ShapedList<Resource> {
  if (!skills || skills.length === 0) return list;
  const items = Object.freeze([...list.items, ...skills]);
  return list.guarded ? { kind: list.kind, items, guarded: [...list.guarded, ...skills.map((skill) => ({ key: skill.uri }))] } : { kind: list.kind, items };
}

function duplicate(kind: string, name: string, first: string, second: string): HermesError {
  return new HermesError(
    'HERMES_DUPLICATE_NAME',
    `the ${kind} "${name}" is declared twice: by ${first} and by ${second}. Give one of them another name (the \`name\`/\`uri\` option of its decorator).`,
  );
}
