/**
 * The registry: resolved definitions of every tool, resource, template and prompt, built by the
 * scanner once at bootstrap. List results are built once per revision and reused until the
 * registry changes.
 */
import type {
  ListPromptsResult,
  ListResourceTemplatesResult,
  ListResourcesResult,
  ListToolsResult,
  Prompt,
  ProtocolVersion,
  Resource,
  ResourceTemplate,
  RevisionFeatures,
  Tool,
} from '@hermes-mcp/protocol';
import type { Constructor } from './container';
import { HermesError } from './errors';
import { shapePrompt, shapeResource, shapeTool } from './shape';
import type { UriTemplate } from './uri-template';

/** How to call one decorated method. @internal */
export interface Invocation {
  /** `Class.method`, for messages and logs. */
  readonly owner: string;
  /** Calls the bound method with the input and the context at the right positions. */
  readonly call: (input: unknown, ctx: unknown) => unknown;
  /** The class the input is validated into; undefined → the raw value is passed. */
  readonly inputClass?: Constructor;
}

/** A resolved tool. */
export interface ToolDefinition extends Invocation {
  readonly name: string;
  /** What `tools/list` shows (newest revision's shape). */
  readonly descriptor: Tool;
  readonly outputClass?: Constructor;
  readonly mimeType?: string;
}

/** A resolved static resource. */
export interface ResourceDefinition extends Invocation {
  readonly uri: string;
  readonly descriptor: Resource;
}

/** A resolved resource template. */
export interface ResourceTemplateDefinition extends Invocation {
  readonly template: UriTemplate;
  readonly descriptor: ResourceTemplate;
}

/** A resolved prompt. */
export interface PromptDefinition extends Invocation {
  readonly name: string;
  readonly descriptor: Prompt;
}

interface ListCache {
  tools?: ListToolsResult;
  resources?: ListResourcesResult;
  templates?: ListResourceTemplatesResult;
  prompts?: ListPromptsResult;
}

/** Everything a server offers, by name or URI. */
export class Registry {
  private readonly tools = new Map<string, ToolDefinition>();
  private readonly resources = new Map<string, ResourceDefinition>();
  private readonly templates: ResourceTemplateDefinition[] = [];
  private readonly prompts = new Map<string, PromptDefinition>();
  private readonly lists = new Map<ProtocolVersion, ListCache>();

  /** Adds a tool; a second tool of the same name is a bootstrap error. */
  addTool(def: ToolDefinition): void {
    const existing = this.tools.get(def.name);
    if (existing) throw duplicate('tool', def.name, existing.owner, def.owner);
    this.tools.set(def.name, def);
    this.lists.clear();
  }

  /** Adds a static resource; a second resource with the same URI is a bootstrap error. */
  addResource(def: ResourceDefinition): void {
    const existing = this.resources.get(def.uri);
    if (existing) throw duplicate('resource URI', def.uri, existing.owner, def.owner);
    this.resources.set(def.uri, def);
    this.lists.clear();
  }

  /** Adds a resource template; a second template with the same pattern is a bootstrap error. */
  addTemplate(def: ResourceTemplateDefinition): void {
    const existing = this.templates.find((t) => t.template.template === def.template.template);
    if (existing) throw duplicate('resource template', def.template.template, existing.owner, def.owner);
    this.templates.push(def);
    this.lists.clear();
  }

  /** Adds a prompt; a second prompt of the same name is a bootstrap error. */
  addPrompt(def: PromptDefinition): void {
    const existing = this.prompts.get(def.name);
    if (existing) throw duplicate('prompt', def.name, existing.owner, def.owner);
    this.prompts.set(def.name, def);
    this.lists.clear();
  }

  /** The tool of that name. */
  tool(name: string): ToolDefinition | undefined {
    return this.tools.get(name);
  }

  /** The prompt of that name. */
  prompt(name: string): PromptDefinition | undefined {
    return this.prompts.get(name);
  }

  /** The static resource at `uri`, else the first template that matches it, with its variables. */
  resolveResource(uri: string): { def: ResourceDefinition | ResourceTemplateDefinition; variables: Record<string, string> } | undefined {
    const def = this.resources.get(uri);
    if (def) return { def, variables: {} };
    for (const template of this.templates) {
      const variables = template.template.match(uri);
      if (variables) return { def: template, variables };
    }
    return undefined;
  }

  /** How many of each kind there are (for capabilities and the startup banner). */
  get counts(): { tools: number; resources: number; templates: number; prompts: number } {
    return { tools: this.tools.size, resources: this.resources.size, templates: this.templates.length, prompts: this.prompts.size };
  }

  /** All tools. */
  allTools(): IterableIterator<ToolDefinition> {
    return this.tools.values();
  }

  /** `tools/list` result for a revision, built once. */
  listTools(f: RevisionFeatures): ListToolsResult {
    const cache = this.cache(f.version);
    return (cache.tools ??= freeze({ tools: [...this.tools.values()].map((t) => shapeTool(t.descriptor, f)) }));
  }

  /** `resources/list` result for a revision, built once. */
  listResources(f: RevisionFeatures): ListResourcesResult {
    const cache = this.cache(f.version);
    return (cache.resources ??= freeze({ resources: [...this.resources.values()].map((r) => shapeResource(r.descriptor, f)) }));
  }

  /** `resources/templates/list` result for a revision, built once. */
  listTemplates(f: RevisionFeatures): ListResourceTemplatesResult {
    const cache = this.cache(f.version);
    return (cache.templates ??= freeze({ resourceTemplates: this.templates.map((t) => shapeResource(t.descriptor, f)) }));
  }

  /** `prompts/list` result for a revision, built once. */
  listPrompts(f: RevisionFeatures): ListPromptsResult {
    const cache = this.cache(f.version);
    return (cache.prompts ??= freeze({ prompts: [...this.prompts.values()].map((p) => shapePrompt(p.descriptor, f)) }));
  }

  private cache(version: ProtocolVersion): ListCache {
    let cache = this.lists.get(version);
    if (!cache) this.lists.set(version, (cache = {}));
    return cache;
  }
}

function freeze<T extends object>(value: T): T {
  return Object.freeze(value);
}

function duplicate(kind: string, name: string, first: string, second: string): HermesError {
  return new HermesError(
    'HERMES_DUPLICATE_NAME',
    `the ${kind} "${name}" is declared twice: by ${first} and by ${second}. Give one of them another name (the \`name\`/\`uri\` option of its decorator).`,
  );
}
