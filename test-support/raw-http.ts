/**
 * HTTP/1.1 answers read whole off a raw socket, for tests that write their requests byte by byte:
 * the Fastify plugin answers with a Content-Length, the Web handler on Node's HTTP server streams
 * its `Response` body chunked, and a test must read both alike.
 */

/** An answer: its status, its headers (names lower-cased), and its body (de-chunked). */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Parses the bytes of a whole answer, or undefined when they hold no complete head. */
export function parseAnswer(bytes: Buffer): RawAnswer | undefined {
  const end = bytes.indexOf('\r\n\r\n');
  if (end === -1) return undefined;
  const [statusLine, ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) headers[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
  const rest = bytes.subarray(end + 4);
  const body = headers['transfer-encoding'] === 'chunked' ? unchunk(rest) : rest;
  return { status: Number(statusLine.split(' ')[1]), headers, body: body.toString('utf8') };
}

/** The data of a chunked body (chunk sizes count bytes), up to its last chunk or as far as it arrived. */
function unchunk(bytes: Buffer): Buffer {
  const parts: Buffer[] = [];
  for (let at = 0; ;) {
    const nl = bytes.indexOf('\r\n', at);
    const size = nl === -1 ? NaN : parseInt(bytes.subarray(at, nl).toString('latin1'), 16);
    if (!(size > 0)) return Buffer.concat(parts);
    parts.push(bytes.subarray(nl + 2, nl + 2 + size));
    at = nl + 2 + size + 2;
  }
}
