import 'reflect-metadata';
import { HermesError } from '../errors';
import { MCP_HEADER } from '../metadata/keys';

/** RFC 9110 §5.6.2 `token` (1*tchar): what an `x-mcp-header` name must be. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Mirrors a tool argument into an HTTP header (MCP 2026-07-28, SEP-2243): the property's JSON
 * Schema gets `"x-mcp-header": name`, so clients on Streamable HTTP send its value as
 * `Mcp-Param-<name>` too, where gateways can route or rate-limit on it without parsing the body;
 * the server refuses a request whose header disagrees with the body. It only records metadata.
 *
 * Put it on a `string`, integer (`@IsInt()`) or `boolean` property that carries a class-validator
 * decorator (others never reach the schema); `number` is not allowed. The name must be an RFC 9110
 * token (letters, digits and `` !#$%&'*+-.^_`|~ ``), unique ignoring case within the tool.
 *
 * It is kept apart from `@JSONSchema` (which keeps a single value per property), so the two combine
 * in any order; `@McpHeader` wins over an `x-mcp-header` written with `@JSONSchema`.
 *
 * @throws HermesError `HERMES_INVALID_OPTIONS` when `name` is not a valid header name.
 * @example
 * class QueryInput {
 *   \@McpHeader('Region') \@IsString() region!: string;   // sent as `Mcp-Param-Region: us-west1`
 *   \@IsString() query!: string;
 * }
 */
export function McpHeader(name: string): PropertyDecorator {
  return (target: object, property: string | symbol): void => {
    const where = `${target.constructor.name}.${String(property)}`;
    const problem = headerNameProblem(name);
    if (problem) throw new HermesError('HERMES_INVALID_OPTIONS', `@McpHeader(${JSON.stringify(name)}) on ${where}: ${problem}.`);
    if (typeof property === 'symbol') {
      throw new HermesError('HERMES_INVALID_OPTIONS', `@McpHeader on ${where}: a symbol-named property never reaches the JSON Schema.`);
    }
    Reflect.defineMetadata(MCP_HEADER, name, target, property);
  };
}

function headerNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string' || name.length === 0) return 'the header name must be a non-empty string';
  if (/[\r\n]/.test(name)) return 'the header name must not contain CR or LF';
  if (!TOKEN.test(name)) {
    return "the header name must be an RFC 9110 token: letters, digits and !#$%&'*+-.^_`|~ only, no spaces, controls or delimiters (e.g. 'Region')";
  }
  return undefined;
}
