/**
 * The MIME type of a skill file, from its extension: the official SDK v2's table, so both serve a
 * file the same way; `application/octet-stream` for any other.
 */
const BY_EXTENSION: ReadonlyMap<string, string> = new Map([
  ['md', 'text/markdown'],
  ['markdown', 'text/markdown'],
  ['txt', 'text/plain'],
  ['json', 'application/json'],
  ['yaml', 'application/yaml'],
  ['yml', 'application/yaml'],
  ['py', 'text/x-python'],
  ['sh', 'application/x-sh'],
  ['bash', 'application/x-sh'],
  ['js', 'text/javascript'],
  ['mjs', 'text/javascript'],
  ['ts', 'text/typescript'],
  ['html', 'text/html'],
  ['css', 'text/css'],
  ['csv', 'text/csv'],
  ['xml', 'application/xml'],
  ['svg', 'image/svg+xml'],
  ['png', 'image/png'],
  ['jpg', 'image/jpeg'],
  ['jpeg', 'image/jpeg'],
  ['gif', 'image/gif'],
  ['webp', 'image/webp'],
  ['pdf', 'application/pdf'],
]);

/** The MIME type of a file named `name`. */
export function skillMimeType(name: string): string {
  const dot = name.lastIndexOf('.');
  return (dot > 0 && BY_EXTENSION.get(name.slice(dot + 1).toLowerCase())) || 'application/octet-stream';
}
