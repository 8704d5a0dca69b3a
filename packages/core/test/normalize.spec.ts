import { REVISIONS } from '@hermes-mcp/protocol';
import { audio, embedded, image, resourceLink, text } from '@hermes-mcp/core';
import { toCallToolResult, toGetPromptResult, toReadResourceResult } from '../src/results/normalize';
import { shapeCallToolResult, shapeTool } from '../src/results/shape';

describe('return normalisation', () => {
  it('turns tool return values into CallToolResults', () => {
    expect(toCallToolResult('hi')).toEqual({ content: [{ type: 'text', text: 'hi' }] });
    expect(toCallToolResult(undefined)).toEqual({ content: [] });
    expect(toCallToolResult(42)).toEqual({ content: [{ type: 'text', text: '42' }] });
    expect(toCallToolResult({ a: 1 })).toEqual({ content: [{ type: 'text', text: '{"a":1}' }], structuredContent: { a: 1 } });
    expect(toCallToolResult([1, 2])).toEqual({ content: [{ type: 'text', text: '[1,2]' }] });
    expect(toCallToolResult(text('t'))).toEqual({ content: [{ type: 'text', text: 't' }] });
    expect(toCallToolResult([text('a'), text('b')]).content).toHaveLength(2);
    const full = { content: [text('x')], isError: true };
    expect(toCallToolResult(full)).toBe(full);
  });

  it('turns bytes into image, audio or an embedded blob by mimeType', () => {
    const bytes = Buffer.from([1, 2, 3]);
    expect(toCallToolResult(bytes, 'image/png').content[0]).toEqual({ type: 'image', data: 'AQID', mimeType: 'image/png' });
    expect(toCallToolResult(bytes, 'audio/wav').content[0]).toEqual({ type: 'audio', data: 'AQID', mimeType: 'audio/wav' });
    expect(toCallToolResult(bytes).content[0]).toMatchObject({ type: 'resource', resource: { blob: 'AQID', mimeType: 'application/octet-stream' } });
  });

  it('class instances become plain structured content', () => {
    class Sum {
      constructor(readonly sum: number) {}
    }
    const result = toCallToolResult(new Sum(3));
    expect(Object.getPrototypeOf(result.structuredContent)).toBe(Object.prototype);
    expect(result.structuredContent).toEqual({ sum: 3 });
  });

  it('turns resource return values into ReadResourceResults', () => {
    expect(toReadResourceResult('hello', 'x://a', 'text/plain')).toEqual({ contents: [{ uri: 'x://a', text: 'hello', mimeType: 'text/plain' }] });
    expect(toReadResourceResult(['a'], 'x://a')).toEqual({ contents: [{ uri: 'x://a', mimeType: 'application/json', text: '["a"]' }] });
    expect(toReadResourceResult(Buffer.from('hi'), 'x://b')).toEqual({ contents: [{ uri: 'x://b', blob: 'aGk=' }] });
    const contents = { uri: 'x://c', text: 'c' };
    expect(toReadResourceResult(contents, 'x://c')).toEqual({ contents: [contents] });
  });

  it('turns prompt return values into GetPromptResults and refuses what is not a prompt', () => {
    expect(toGetPromptResult('plan', 'desc')).toEqual({ description: 'desc', messages: [{ role: 'user', content: { type: 'text', text: 'plan' } }] });
    expect(toGetPromptResult(image('AQID', 'image/png')).messages[0].content.type).toBe('image');
    expect(() => toGetPromptResult(42)).toThrow(TypeError);
  });
});

describe('shaping per revision', () => {
  const tool = {
    name: 't',
    title: 'T',
    description: 'd',
    inputSchema: { type: 'object' as const },
    outputSchema: { type: 'object' as const },
    annotations: { readOnlyHint: true },
    icons: [{ src: 'https://x/i.png' }],
    _meta: { a: 1 },
  };

  it('keeps tools whole for 2025-11-25 and strips what older revisions lack', () => {
    expect(shapeTool(tool, REVISIONS['2025-11-25'])).toBe(tool);
    expect(Object.keys(shapeTool(tool, REVISIONS['2025-06-18'])).sort()).toEqual(['_meta', 'annotations', 'description', 'inputSchema', 'name', 'outputSchema', 'title']);
    expect(Object.keys(shapeTool(tool, REVISIONS['2025-03-26'])).sort()).toEqual(['annotations', 'description', 'inputSchema', 'name']);
    expect(Object.keys(shapeTool(tool, REVISIONS['2024-11-05'])).sort()).toEqual(['description', 'inputSchema', 'name']);
  });

  it('replaces content a revision cannot carry with text, and drops structuredContent before 2025-06-18', () => {
    const result = { content: [audio('AQID', 'audio/wav'), resourceLink('x://a', 'a'), embedded('x://b', 'b')], structuredContent: { a: 1 } };
    const old = shapeCallToolResult(result, REVISIONS['2024-11-05']);
    expect(old.structuredContent).toBeUndefined();
    expect(old.content.map((c) => c.type)).toEqual(['text', 'text', 'resource']);
    const mid = shapeCallToolResult(result, REVISIONS['2025-03-26']);
    expect(mid.content.map((c) => c.type)).toEqual(['audio', 'text', 'resource']);
    expect(shapeCallToolResult(result, REVISIONS['2025-06-18']).content.map((c) => c.type)).toEqual(['audio', 'resource_link', 'resource']);
  });
});
