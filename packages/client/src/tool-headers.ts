/**
 * The `x-mcp-header` declarations of the tools a 2026-07-28 server listed (SEP-2243): remembered
 * from `tools/list`, and turned into a call's `Mcp-Param-*` headers.
 */
import { encodeHeaderValue, headerParamsOf, isRecord, validateHeaderDeclarations } from '@hermes-mcp/protocol';
import type { HeaderParam, Tool } from '@hermes-mcp/protocol';
import type { ClientLogger } from './client-api';

/** The header declarations of each tool listed, by name. */
export class ToolHeaders {
  private readonly byTool = new Map<string, HeaderParam[]>();

  /** True once `name` was listed (its declarations, possibly none, are known). */
  knows(name: string): boolean {
    return this.byTool.has(name);
  }

  /**
   * The tools of a list page the client keeps: a tool whose `x-mcp-header` declarations are
   * invalid is left out (the spec has clients reject it) and reported; the others' declarations
   * are remembered for their calls.
   */
  keep(tools: Tool[], logger: ClientLogger): Tool[] {
    return tools.filter((tool) => {
      const schema = isRecord(tool.inputSchema) ? tool.inputSchema : {};
      const problems = validateHeaderDeclarations(schema);
      if (problems.length > 0) {
        logger.error(`the tool "${String(tool.name)}" is left out: its x-mcp-header declarations are invalid`, problems);
        this.byTool.delete(tool.name);
        return false;
      }
      this.byTool.set(tool.name, headerParamsOf(schema));
      return true;
    });
  }

  /** The `Mcp-Param-*` headers of a call to `name` with `args`, from the tool's declarations. */
  of(name: string, args: Record<string, unknown>): Record<string, string> | undefined {
    const declarations = this.byTool.get(name);
    if (!declarations || declarations.length === 0) return undefined;
    const headers: Record<string, string> = {};
    for (const { path, header } of declarations) {
      let value: unknown = args;
      for (const key of path) value = isRecord(value) && Object.hasOwn(value, key) ? value[key] : undefined;
      const encoded = encodeHeaderValue(value);
      if (encoded !== undefined) headers[`mcp-param-${header.toLowerCase()}`] = encoded;
    }
    return headers;
  }
}
