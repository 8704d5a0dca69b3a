/**
 * The registry: resolved definitions of every tool, resource, template and prompt, built by the
 * scanner once at bootstrap and changed at runtime through the app (add, remove, enable, disable).
 * Shaped list arrays are built once per revision and reused until the registry changes; pages are
 * slices of them.
 */
import type { Prompt, ProtocolVersion, Resource, ResourceTemplate, RevisionFeatures, Tool } from '@hermes-mcp/protocol';
import type { CompleteFn } from './completion';
import type { Constructor } from './container';
import type { CursorCodec } from './cursor';
import type { CacheHints } from '../engine/modern';
import { HermesError } from '../errors';
import { shapePrompt, shapeResource, shapeTool } from '../results/shape';
import type { TaskStart, TaskSupport } from '../engine/tasks';
import type { UriTemplate } from './uri-template';

/** How to call one handler. For the Hermes packages. */
export interface Invocation {
  /** `Class.method`, for messages and logs. */
  readonly owner: string;
  /** Calls the handler (through its middleware) with the input and the context. */
  readonly call: (input: unknown, ctx: unknown) => unknown;
  /** The class the input is validated into; undefined → the raw value is passed. */
  readonly inputClass?: Constructor;
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

/** The three lists a client can watch for changes. */
export type ListKind = 'tools' | 'resources' | 'prompts';

/** One page of a list. */
export interface Page<T> {
  items: readonly T[];
  nextCursor?: string;
}

type Lists = { tools?: Tool[]; resources?: Resource[]; templates?: ResourceTemplate[]; prompts?: Prompt[] };

/** Everything a server offers, by name or URI. */
export class Registry {
  private readonly tools = new Map<string, ToolDefinition>();
  private readonly resources = new Map<string, ResourceDefinition>();
  private readonly templates = new Map<string, ResourceTemplateDefinition>();
  private readonly prompts = new Map<string, PromptDefinition>();
  private readonly lists = new Map<ProtocolVersion, Lists>();
  /** Called after every change, with the list that changed. */
  onChange?: (kind: ListKind) => void;

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

  /** How many enabled definitions of each kind there are. */
  get counts(): { tools: number; resources: number; templates: number; prompts: number } {
    const enabled = (map: Map<string, Switchable>) => [...map.values()].filter((d) => d.enabled).length;
    return { tools: enabled(this.tools), resources: enabled(this.resources), templates: enabled(this.templates), prompts: enabled(this.prompts) };
  }

  /** The enabled tools, in the order they were added. */
  allTools(): ToolDefinition[] {
    return [...this.tools.values()].filter((t) => t.enabled);
  }

  /** One page of `tools/list` for a revision. */
  listTools(f: RevisionFeatures, cursor?: unknown): Page<Tool> {
    return this.page('tools', (this.cache(f.version).tools ??= shaped(this.tools, (t) => shapeTool(t.descriptor, f))), cursor);
  }

  /** One page of `resources/list` for a revision. */
  listResources(f: RevisionFeatures, cursor?: unknown): Page<Resource> {
    return this.page('resources', (this.cache(f.version).resources ??= shaped(this.resources, (r) => shapeResource(r.descriptor, f))), cursor);
  }

  /** One page of `resources/templates/list` for a revision. */
  listTemplates(f: RevisionFeatures, cursor?: unknown): Page<ResourceTemplate> {
    return this.page('templates', (this.cache(f.version).templates ??= shaped(this.templates, (t) => shapeResource(t.descriptor, f))), cursor);
  }

  /** One page of `prompts/list` for a revision. */
  listPrompts(f: RevisionFeatures, cursor?: unknown): Page<Prompt> {
    return this.page('prompts', (this.cache(f.version).prompts ??= shaped(this.prompts, (p) => shapePrompt(p.descriptor, f))), cursor);
  }

  private page<T>(kind: string, all: readonly T[], cursor: unknown): Page<T> {
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
    this.lists.clear();
    this.onChange?.(kind);
  }

  private cache(version: ProtocolVersion): Lists {
    let cache = this.lists.get(version);
    if (!cache) this.lists.set(version, (cache = {}));
    return cache;
  }
}

function shaped<D extends Switchable, T>(defs: Map<string, D>, shape: (def: D) => T): T[] {
  const out: T[] = [];
  for (const def of defs.values()) if (def.enabled) out.push(shape(def));
  return Object.freeze(out) as T[];
}

function duplicate(kind: string, name: string, first: string, second: string): HermesError {
  return new HermesError(
    'HERMES_DUPLICATE_NAME',
    `the ${kind} "${name}" is declared twice: by ${first} and by ${second}. Give one of them another name (the \`name\`/\`uri\` option of its decorator).`,
  );
}
