/**
 * The diagnostics channels (docs/observability.md): `hermes-mcp:request` traces every request a
 * server answers — start, end, then asyncStart/asyncEnd with the result, or error — in both eras,
 * with the method, id, era, params (and their `_meta`), transport, session and revision;
 * `hermes-mcp:session:created`/`closed` mark a legacy session's life. Nothing is published, and
 * no context built, when nobody subscribes.
 */
import 'reflect-metadata';
import { subscribe, tracingChannel, unsubscribe } from 'node:diagnostics_channel';
import { IsNumber } from 'class-validator';
import { createTestClient } from '@hermes-mcp/testing';
import { McpServer, RequestTrace, SessionEvent, Tool, ToolError } from '@hermes-mcp/core';

class Sum {
  @IsNumber() a!: number;
  @IsNumber() b!: number;
}

@McpServer({ name: 'traced', version: '1.0.0' })
class Traced {
  @Tool({ description: 'Adds' }) add(input: Sum) {
    return String(input.a + input.b);
  }
  @Tool({ description: 'Fails as a tool' }) broken() {
    throw new ToolError('no');
  }
}

/** Every event of the request channel while `run` runs, in order. */
async function recording<T>(run: () => Promise<T>): Promise<{ events: Array<[string, RequestTrace]>; value: T }> {
  const events: Array<[string, RequestTrace]> = [];
  const handlers = {
    start: (c: RequestTrace) => events.push(['start', { ...c }]),
    end: (c: RequestTrace) => events.push(['end', { ...c }]),
    asyncStart: (c: RequestTrace) => events.push(['asyncStart', { ...c }]),
    asyncEnd: (c: RequestTrace) => events.push(['asyncEnd', { ...c }]),
    error: (c: RequestTrace) => events.push(['error', { ...c }]),
  };
  const channel = tracingChannel<RequestTrace, RequestTrace>('hermes-mcp:request');
  channel.subscribe(handlers);
  try {
    return { events, value: await run() };
  } finally {
    channel.unsubscribe(handlers);
  }
}

describe.each(['legacy', 'modern'] as const)('hermes-mcp:request (%s)', (era) => {
  it('traces a call from start to its result, with what a span needs', async () => {
    const client = await createTestClient(Traced, { era });
    const { events } = await recording(() => client.callTool('add', { a: 2, b: 3 }));
    await client.close();
    const calls = events.filter(([, c]) => c.method === 'tools/call');
    expect(calls.map(([kind]) => kind)).toEqual(['start', 'end', 'asyncStart', 'asyncEnd']);
    const [, started] = calls[0];
    expect(started).toMatchObject({ method: 'tools/call', era, params: { name: 'add', arguments: { a: 2, b: 3 } }, transport: { kind: 'memory' } });
    expect(started.id).toEqual(expect.anything());
    expect(started.protocolVersion).toBe(era === 'legacy' ? '2025-11-25' : '2026-07-28');
    expect(calls[3][1].result).toMatchObject({ content: [{ type: 'text', text: '5' }] });
    // A tool error is a result (isError), not a failed request.
    const failed = await recording(() => createTestClient(Traced, { era }).then(async (c) => (await c.callTool('broken'), c.close())));
    const broken = failed.events.filter(([, c]) => c.method === 'tools/call').map(([kind, c]) => [kind, (c.result as { isError?: boolean } | undefined)?.isError]);
    expect(broken).toEqual([
      ['start', undefined],
      ['end', undefined],
      ['asyncStart', true],
      ['asyncEnd', true],
    ]);
  });

  it('marks a request that fails with its error', async () => {
    const client = await createTestClient(Traced, { era });
    const { events } = await recording(() => client.callTool('missing').catch((e: unknown) => e));
    await client.close();
    const calls = events.filter(([, c]) => c.method === 'tools/call');
    expect(calls.map(([kind]) => kind)).toEqual(['start', 'end', 'error', 'asyncStart', 'asyncEnd']);
    expect(calls[2][1].error).toMatchObject({ code: -32602 });
  });
});

it('tells a legacy session’s start and end on the session channels', async () => {
  const created: SessionEvent[] = [];
  const closed: SessionEvent[] = [];
  const onCreated = (m: unknown) => created.push(m as SessionEvent);
  const onClosed = (m: unknown) => closed.push(m as SessionEvent);
  subscribe('hermes-mcp:session:created', onCreated);
  subscribe('hermes-mcp:session:closed', onClosed);
  try {
    const client = await createTestClient(Traced);
    expect(created).toEqual([expect.objectContaining({ protocolVersion: '2025-11-25', transport: expect.objectContaining({ kind: 'memory' }), startedAt: expect.any(Number) })]);
    expect(closed).toEqual([]);
    await client.close();
    for (let i = 0; i < 50 && closed.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(closed).toEqual([created[0]]);
  } finally {
    unsubscribe('hermes-mcp:session:created', onCreated);
    unsubscribe('hermes-mcp:session:closed', onClosed);
  }
});

it('publishes nothing when nobody subscribes', async () => {
  const channel = tracingChannel('hermes-mcp:request');
  expect(channel.hasSubscribers).toBe(false);
  const client = await createTestClient(Traced);
  expect((await client.callTool('add', { a: 1, b: 1 })).content).toEqual([{ type: 'text', text: '2' }]);
  await client.close();
});
