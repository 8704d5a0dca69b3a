/**
 * A SKILL.md's frontmatter as JSON: the `---` block split off (protocol's `splitFrontmatter`) and
 * parsed with `yaml` (YAML 1.2, core schema: the library and schema the conformance suite compares
 * with). What the official SDK's fail-closed reader refuses is refused here too — anchors, aliases,
 * explicit tags, duplicate keys, tab indentation — so every entry Hermes serves is one the SDK
 * client accepts; and what JSON cannot carry (`.inf`, `.nan`), a `__proto__` key and nesting deeper
 * than 32 levels.
 */
import { onFirstUse, splitFrontmatter } from '@hermes-mcp/protocol';
import type * as Yaml from 'yaml';
import { SkillProblem } from './problem';

/** `yaml`, loaded the first time a SKILL.md is read: a server without skills never pays its load (about a third of core's). */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const yaml = onFirstUse(() => require('yaml') as typeof Yaml);

const MAX_DEPTH = 32;

const invalid = (message: string) => new SkillProblem('HERMES_SKILL_INVALID', `SKILL.md ${message}`);

/** Checks a parsed value holds only what JSON carries, with no `__proto__` key and no deeper nesting than allowed. */
function checkJson(value: unknown, path: string, depth: number): void {
  if (depth > MAX_DEPTH) throw invalid(`frontmatter nests deeper than ${MAX_DEPTH} levels (at ${path})`);
  if (typeof value === 'number' && !Number.isFinite(value)) throw invalid(`frontmatter ${path} is ${value}, which JSON cannot carry`);
  if (Array.isArray(value)) value.forEach((item, index) => checkJson(item, `${path}[${index}]`, depth + 1));
  else if (typeof value === 'object' && value !== null) {
    for (const key of Object.keys(value)) {
      if (key === '__proto__') throw invalid(`frontmatter has a "__proto__" key (${path})`);
      checkJson((value as Record<string, unknown>)[key], `${path}.${key}`, depth + 1);
    }
  }
}

/**
 * The frontmatter of a SKILL.md's text as a JSON object, and the body after it. Throws a
 * {@link SkillProblem} (`HERMES_SKILL_INVALID`) saying what is wrong: no `---` block, a block over
 * `maxBytes`, YAML errors, what is refused above, or no object with string `name` and `description`.
 */
export function parseSkillMarkdown(text: string, maxBytes: number): { frontmatter: Record<string, unknown>; body: string } {
  const split = splitFrontmatter(text);
  if (!split) throw invalid('must begin with a frontmatter block between two "---" lines');
  if (Buffer.byteLength(split.block) > maxBytes) throw invalid(`frontmatter is over ${maxBytes} bytes (limits.frontmatterBytes)`);
  const { isAlias, isNode, parseDocument, visit } = yaml();
  const doc = parseDocument(split.block, { version: '1.2', schema: 'core', uniqueKeys: true, prettyErrors: false });
  const [first] = [...doc.errors, ...doc.warnings];
  if (first) throw invalid(`frontmatter is not valid YAML: ${first.message.split('\n')[0]}`);
  visit(doc, (_key, node) => {
    if (isAlias(node)) throw invalid(`frontmatter uses an alias (*${node.source}): aliases are refused`);
    if (isNode(node) && node.anchor) throw invalid(`frontmatter uses an anchor (&${node.anchor}): anchors are refused`);
    if (isNode(node) && node.tag) throw invalid(`frontmatter uses an explicit tag (${node.tag}): tags are refused`);
  });
  const value: unknown = doc.toJS();
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid('frontmatter must be a YAML mapping');
  checkJson(value, 'frontmatter', 0);
  const frontmatter = value as Record<string, unknown>;
  if (typeof frontmatter.name !== 'string' || typeof frontmatter.description !== 'string') throw invalid('frontmatter must have a string "name" and "description"');
  return { frontmatter, body: split.body };
}
