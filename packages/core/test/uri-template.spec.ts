import { HermesError, compileUriTemplate } from '@hermes-mcp/core';

describe('compileUriTemplate', () => {
  it('matches {var} against one path segment and decodes it', () => {
    const t = compileUriTemplate('notes://note/{id}/rev/{rev}');
    expect(t.variables).toEqual(['id', 'rev']);
    expect(t.match('notes://note/12/rev/3')).toEqual({ id: '12', rev: '3' });
    expect(t.match('notes://note/a%20b/rev/x')).toEqual({ id: 'a b', rev: 'x' });
    expect(t.match('notes://note/1/2/rev/3')).toBeUndefined();
    expect(t.match('notes://note//rev/3')).toBeUndefined();
    expect(t.match('notes://note/1/rev/3/extra')).toBeUndefined();
  });

  it('matches {+var} across slashes', () => {
    const t = compileUriTemplate('file:///{+path}');
    expect(t.match('file:///a/b/c.txt')).toEqual({ path: 'a/b/c.txt' });
  });

  it('treats regex characters in the literal parts literally', () => {
    const t = compileUriTemplate('x://a.b/{id}');
    expect(t.match('x://aXb/1')).toBeUndefined();
    expect(t.match('x://a.b/1')).toEqual({ id: '1' });
  });

  it('refuses undecodable values instead of throwing', () => {
    expect(compileUriTemplate('x://{id}').match('x://%E0%A4%A')).toBeUndefined();
  });

  it.each(['x://{a', 'x://a}', 'x://{?q}', 'x://{a}/{a}'])('rejects %s at bootstrap', (template) => {
    expect(() => compileUriTemplate(template)).toThrow(HermesError);
  });
});
