/**
 * @hermes-mcp/testing — test a Hermes MCP server in process, in either MCP era.
 *
 * @example
 * import { createTestClient, textOf } from '@hermes-mcp/testing';
 *
 * it('adds', async () => {
 *   const client = await createTestClient(CalcServer);
 *   expect(textOf(await client.callTool('add', { a: 2, b: 3 }))).toBe('5');
 *   await client.close();
 * });
 */
export { createTestClient, textOf } from './test-client';
export type { CallOptions, ElicitationAnswer, ElicitationRequest, ProgressEvent, TestClient, TestClientOptions } from './test-client';
