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

  it.each(['fuzz://file/a b', 'fuzz://file/a`b', 'fuzz://file/"q"', 'fuzz://file/é', 'fuzz://file/a<b>', 'fuzz://file/a\\b', 'fuzz://file/%zz'])(
    'matches only what an expansion can produce (RFC 6570): %s is not a URI',
    (uri) => {
      expect(compileUriTemplate('fuzz://file/{+path}').match(uri)).toBeUndefined();
      expect(compileUriTemplate('fuzz://file/{name}').match(uri)).toBeUndefined();
    },
  );

  it('keeps reserved characters in {+var}, and all but / ? # in {var}; percent-encoded octets decode', () => {
    expect(compileUriTemplate('x://f/{+p}').match("x://f/a/b?c=d&e=[1]!$'()*+,;:@#frag")).toEqual({ p: "a/b?c=d&e=[1]!$'()*+,;:@#frag" });
    expect(compileUriTemplate('x://f/{n}').match('x://f/a,b;c=d')).toEqual({ n: 'a,b;c=d' });
    expect(compileUriTemplate('x://f/{n}').match('x://f/a%20b%C3%A9')).toEqual({ n: 'a bé' });
  });

  it.each(['x://{a', 'x://a}', 'x://{?q}', 'x://{a}/{a}'])('rejects %s at bootstrap', (template) => {
    expect(() => compileUriTemplate(template)).toThrow(HermesError);
  });
});
