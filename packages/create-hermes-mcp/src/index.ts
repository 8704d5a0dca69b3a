/**
 * create-hermes-mcp — scaffolds a Hermes MCP server project. Run it with `npm create hermes-mcp`;
 * `scaffold()` does the same from code.
 */
export { TEMPLATE_DIR, scaffold } from './scaffold';
export type { HermesPackage, ScaffoldOptions, ScaffoldResult } from './scaffold';
