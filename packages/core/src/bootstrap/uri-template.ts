/**
 * URI templates for resources: RFC 6570 simple (`{var}`) and reserved (`{+var}`) expansion, which
 * is what MCP resource templates use in practice. Compiled once at bootstrap into a RegExp.
 */
import { HermesError } from '../errors';

/** A compiled template: its variable names and a matcher. */
export interface UriTemplate {
  /** The template as written, e.g. `notes://note/{id}`. */
  readonly template: string;
  /** Variable names in order of appearance. */
  readonly variables: readonly string[];
  /** The variables of `uri` when it matches, else undefined. */
  match(uri: string): Record<string, string> | undefined;
}

const EXPRESSION = /\{([+]?)([A-Za-z0-9_.]+)\}/g;

/**
 * What an expansion can produce (RFC 6570 §3.2): unreserved characters, percent-encoded octets,
 * and reserved characters — all of them for `{+var}`, all but `/`, `?` and `#` for `{var}` (whose
 * value is one path segment). A URI with anything else (spaces, quotes, non-ASCII) matches no
 * template: it is not a URI.
 */
const SIMPLE_VALUE = "((?:[A-Za-z0-9\\-._~!$&'()*+,;=:@\\[\\]]|%[0-9A-Fa-f]{2})+)";
const RESERVED_VALUE = "((?:[A-Za-z0-9\\-._~!$&'()*+,;=:@\\[\\]/?#]|%[0-9A-Fa-f]{2})+?)";

/** True when `uri` contains a `{…}` expression, i.e. it is a template rather than a URI. */
export function isUriTemplate(uri: string): boolean {
  return uri.includes('{');
}

/**
 * Compiles a template. Throws `HERMES_INVALID_URI_TEMPLATE` for unbalanced braces, operators other
 * than `+`, or a repeated variable.
 */
export function compileUriTemplate(template: string): UriTemplate {
  const stripped = template.replace(EXPRESSION, '');
  if (/[{}]/.test(stripped)) {
    throw new HermesError(
      'HERMES_INVALID_URI_TEMPLATE',
      `"${template}" is not a supported URI template: use {name} for one path segment or {+name} for a value that may contain "/"`,
    );
  }
  const variables: string[] = [];
  let pattern = '^';
  let last = 0;
  for (const match of template.matchAll(EXPRESSION)) {
    const [whole, operator, name] = match;
    if (variables.includes(name)) {
      throw new HermesError('HERMES_INVALID_URI_TEMPLATE', `"${template}" uses the variable {${name}} twice`);
    }
    variables.push(name);
    pattern += escapeRegExp(template.slice(last, match.index)) + (operator === '+' ? RESERVED_VALUE : SIMPLE_VALUE);
    last = match.index + whole.length;
  }
  pattern += escapeRegExp(template.slice(last)) + '$';
  const regex = new RegExp(pattern);
  return {
    template,
    variables,
    match(uri) {
      const found = regex.exec(uri);
      if (!found) return undefined;
      const values: Record<string, string> = {};
      for (let i = 0; i < variables.length; i++) {
        try {
          values[variables[i]] = decodeURIComponent(found[i + 1]);
        } catch {
          return undefined;
        }
      }
      return values;
    },
  };
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
