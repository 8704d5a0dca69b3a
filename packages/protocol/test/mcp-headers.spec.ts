/** Header values both ways (SEP-2243): what a client encodes, a server decodes to the same value. */
import fc from 'fast-check';
import { decodeHeaderValue, encodeHeaderValue } from '@hermes-mcp/protocol';

describe('encodeHeaderValue', () => {
  it('sends plain ASCII as it is, and everything a header cannot carry as Base64 of UTF-8', () => {
    expect(encodeHeaderValue('us-west1')).toBe('us-west1');
    expect(encodeHeaderValue('us west 1')).toBe('us west 1');
    expect(encodeHeaderValue('')).toBe('');
    expect(encodeHeaderValue('Hello, 世界')).toBe(`=?base64?${Buffer.from('Hello, 世界').toString('base64')}?=`);
    for (const padded of [' padded ', ' us-west1', 'us-west1 ', 'tab\there', 'line\nbreak', '=?base64?looks encoded?=']) {
      expect(encodeHeaderValue(padded)).toBe(`=?base64?${Buffer.from(padded).toString('base64')}?=`);
    }
  });

  it('writes booleans and numbers in their header form, and sends nothing for null, objects and arrays', () => {
    expect([true, false, 42, -7, 3.14159].map(encodeHeaderValue)).toEqual(['true', 'false', '42', '-7', '3.14159']);
    expect([null, undefined, {}, [], Number.NaN, Infinity].map(encodeHeaderValue)).toEqual([undefined, undefined, undefined, undefined, undefined, undefined]);
  });

  it('round-trips any string through decodeHeaderValue', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 64 }), (value) => {
        const encoded = encodeHeaderValue(value)!;
        expect(/^[\x20-\x7e]*$/.test(encoded)).toBe(true);
        expect(decodeHeaderValue(encoded)).toEqual({ ok: true, value });
      }),
      { numRuns: 2000 },
    );
  });
});
