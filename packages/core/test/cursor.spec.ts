import { McpError } from '@hermes-mcp/protocol';
import { CursorCodec } from '../src/bootstrap/cursor';

describe('CursorCodec', () => {
  const codec = new CursorCodec('secret');

  it('round-trips an offset for its list', () => {
    expect(codec.decode('tools', codec.encode('tools', 20))).toBe(20);
  });

  it.each([
    ['a cursor of another list', () => codec.encode('prompts', 20)],
    ['a cursor sealed with another secret', () => new CursorCodec('other').encode('tools', 20)],
    [
      'an edited payload',
      () => {
        const [, mac] = codec.encode('tools', 20).split('.');
        return `${Buffer.from('tools:0').toString('base64url')}.${mac}`;
      },
    ],
    ['garbage', () => 'not-a-cursor'],
    // base64url decoding ignores the unused low bits of the last character and stray characters:
    // the seal must be compared as text, or these edits would pass.
    [
      'a seal whose last character changed',
      () => {
        const cursor = codec.encode('tools', 20);
        const last = cursor[cursor.length - 1];
        return cursor.slice(0, -1) + (last === 'A' ? 'B' : 'A');
      },
    ],
    ['a seal with a stray character appended', () => `${codec.encode('tools', 20)}!`],
    ['an empty string', () => ''],
  ])('refuses %s with -32602', (_, make) => {
    expect(() => codec.decode('tools', make())).toThrow(McpError);
    try {
      codec.decode('tools', make());
    } catch (error) {
      expect((error as McpError).code).toBe(-32602);
    }
  });

  it('refuses a cursor that is not a string', () => {
    expect(() => codec.decode('tools', 5)).toThrow('"cursor" must be a string');
  });
});
