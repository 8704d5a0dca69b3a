/**
 * Results shaped for the revision that will read them: a client never receives a field its
 * revision lacks. Shaping is driven by the revision table's feature flags; for the newest legacy
 * revision every function here returns its input untouched.
 */
import type {
  Annotations,
  CallToolResult,
  ContentBlock,
  Implementation,
  Prompt,
  PromptMessage,
  Resource,
  ResourceContents,
  ResourceTemplate,
  RevisionFeatures,
  ServerCapabilities,
  Tool,
} from '@hermes-mcp/protocol';
import { APPS_EXTENSION, SKILLS_EXTENSION, isRecord, mcpMethod } from '@hermes-mcp/protocol';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

function pick<T extends object>(source: T, keep: (key: string) => boolean): T {
  const out = {} as Mutable<T>;
  for (const key of Object.keys(source) as Array<keyof T & string>) {
    if (keep(key)) out[key] = source[key];
  }
  return out;
}

/** True when nothing needs shaping for this revision (all our fields exist there). */
export function isNewest(features: RevisionFeatures): boolean {
  return features.icons;
}

function shapeAnnotations(annotations: Annotations, f: RevisionFeatures): Annotations {
  return f.meta ? annotations : pick(annotations, (k) => k !== 'lastModified');
}

/** Keys that arrived with titles/_meta (2025-06-18) and icons (2025-11-25). */
function keepCommon(key: string, f: RevisionFeatures): boolean {
  if (key === 'title') return f.titles;
  if (key === '_meta') return f.meta;
  if (key === 'icons') return f.icons;
  return true;
}

/** Shapes `serverInfo` / `clientInfo`. */
export function shapeImplementation(info: Implementation, f: RevisionFeatures): Implementation {
  if (isNewest(f)) return info;
  return pick(info, (k) => k === 'name' || k === 'version' || (k === 'title' && f.titles));
}

/** The skills extension is offered where its methods are (2025-11-25 and 2026-07-28): the declaration and the methods agree. */
const SKILLS_REVISIONS = mcpMethod('skills/list')!.revisions;

/**
 * Shapes server capabilities: `completions` arrived in 2025-03-26; the Skills extension is declared
 * only where its methods are served, MCP Apps only where `_meta` exists (2025-06-18); an
 * `extensions` left empty is dropped.
 */
export function shapeCapabilities(capabilities: ServerCapabilities, f: RevisionFeatures): ServerCapabilities {
  const extensions = isRecord(capabilities.extensions) ? capabilities.extensions : undefined;
  const dropSkills = extensions !== undefined && SKILLS_EXTENSION in extensions && !SKILLS_REVISIONS.includes(f.version);
  const dropApps = extensions !== undefined && APPS_EXTENSION in extensions && !f.meta;
  if (f.completions && !dropSkills && !dropApps) return capabilities;
  const out = pick(capabilities, (k) => k !== 'completions' || f.completions);
  if (dropSkills || dropApps) {
    const kept = pick(extensions, (k) => !(k === SKILLS_EXTENSION && dropSkills) && !(k === APPS_EXTENSION && dropApps));
    if (Object.keys(kept).length > 0) out.extensions = kept;
    else delete out.extensions;
  }
  return out;
}

/** Shapes one tool definition. */
export function shapeTool(tool: Tool, f: RevisionFeatures): Tool {
  if (isNewest(f)) return tool;
  return pick(tool, (k) => {
    if (k === 'annotations') return f.toolAnnotations;
    if (k === 'outputSchema') return f.structuredOutput;
    if (k === 'execution') return false;
    return keepCommon(k, f);
  });
}

/** Shapes one resource or resource template. */
export function shapeResource<T extends Resource | ResourceTemplate>(resource: T, f: RevisionFeatures): T {
  if (isNewest(f)) return resource;
  const out = pick(resource, (k) => keepCommon(k, f));
  if (out.annotations) out.annotations = shapeAnnotations(out.annotations, f);
  return out;
}

/** Shapes one prompt definition. */
export function shapePrompt(prompt: Prompt, f: RevisionFeatures): Prompt {
  if (isNewest(f)) return prompt;
  const out = pick(prompt, (k) => keepCommon(k, f));
  if (out.arguments && !f.titles) out.arguments = out.arguments.map((a) => pick(a, (k) => k !== 'title'));
  return out;
}

/** Shapes resource contents (`_meta` arrived in 2025-06-18). */
export function shapeContents(contents: ResourceContents, f: RevisionFeatures): ResourceContents {
  return f.meta || !('_meta' in contents) ? contents : pick(contents, (k) => k !== '_meta');
}

/**
 * Shapes one content block. Blocks a revision cannot carry become text that says what was there
 * (audio before 2025-03-26, resource links before 2025-06-18), so the model still learns of them.
 */
export function shapeContent(block: ContentBlock, f: RevisionFeatures): ContentBlock {
  if (isNewest(f)) return block;
  if (block.type === 'audio' && !f.audioContent) {
    return { type: 'text', text: `[audio content (${block.mimeType}) is not supported by this protocol revision]` };
  }
  if (block.type === 'resource_link' && !f.resourceLinks) {
    return { type: 'text', text: `Resource: ${block.name} <${block.uri}>` };
  }
  const out: ContentBlock = pick(block, (k) => k !== '_meta' || f.meta);
  if (out.annotations) out.annotations = shapeAnnotations(out.annotations, f);
  if (out.type === 'resource') out.resource = shapeContents(out.resource, f);
  return out;
}

/** Shapes a `tools/call` result (`structuredContent` arrived in 2025-06-18). */
export function shapeCallToolResult(result: CallToolResult, f: RevisionFeatures): CallToolResult {
  // Since 2025-06-18 a call result and its content blocks have every field we send: no copy.
  if (f.structuredOutput && f.meta && f.resourceLinks && f.audioContent) return result;
  const out = pick(result, (k) => k !== 'structuredContent' || f.structuredOutput);
  out.content = result.content.map((c) => shapeContent(c, f));
  return out;
}

/** Shapes prompt messages. */
export function shapeMessages(messages: PromptMessage[], f: RevisionFeatures): PromptMessage[] {
  if (isNewest(f)) return messages;
  return messages.map((m) => ({ role: m.role, content: shapeContent(m.content, f) }));
}
