/**
 * What an authorization server (or an IdP) answers, read within bounds: its JSON up to
 * MAX_OAUTH_ANSWER_BYTES, a token answer checked, and the error every step of a sign-in fails with.
 */
import { ErrorCode, McpError } from '@hermes-mcp/protocol';
import type { OAuthGrantStep } from './grants';
import { readText } from './node-fetch';
import type { FetchResponse } from './node-fetch';

/** What went wrong signing in. */
export class OAuthError extends Error {
  constructor(
    message: string,
    /** The OAuth error code, when the authorization server (or the IdP) sent one. */
    readonly error?: string,
    /** For a JWT-bearer grant, which step failed: reading the JWT held, the token exchange at the IdP, or the grant at the authorization server. */
    readonly step?: OAuthGrantStep,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'OAuthError';
  }
}

/** What a token endpoint answers (RFC 6749 §5.1; RFC 8693 §2.2 adds `issued_token_type`). */
export interface TokenAnswer {
  access_token: string;
  refresh_token?: string;
  expires_in?: number;
  scope?: string;
  issued_token_type?: string;
}

/** A token endpoint's answer as far as it is JSON (RFC 6749 §5.1 and §5.2), or nothing. */
type TokenAnswerBody = Partial<TokenAnswer> & { token_type?: string; error?: string; error_description?: string };

export async function tokenAnswerBody(response: Response, what: string, step?: OAuthGrantStep): Promise<TokenAnswerBody> {
  const value = await answerJson(response, what, step);
  return typeof value === 'object' && value !== null ? value : {};
}

/**
 * The most this client reads of one answer from an authorization server or an IdP (metadata, a
 * registration, a token): 1 MiB. They take a few KiB; what goes on past this is not read.
 */
export const MAX_OAUTH_ANSWER_BYTES = 1024 * 1024;

/** What a refused answer's body may hold that is read (to reuse the connection) before it is dropped. */
const DISCARD_BYTES = 64 * 1024;

/**
 * The JSON of an answer (`what` names the request), or undefined when it is not JSON. An answer
 * past {@link MAX_OAUTH_ANSWER_BYTES} is an OAuthError naming the limit, read no further.
 */
export async function answerJson(response: Response, what: string, step?: OAuthGrantStep): Promise<unknown> {
  let text: string;
  try {
    text = await readText(response, MAX_OAUTH_ANSWER_BYTES);
  } catch (error) {
    if (error instanceof McpError && error.code === ErrorCode.ResultTooLarge)
      throw new OAuthError(
        `${what} answered with more than ${MAX_OAUTH_ANSWER_BYTES} bytes, the most this client reads from an authorization server (MAX_OAUTH_ANSWER_BYTES): not read further`,
        undefined,
        step,
      );
    return undefined;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Drops an answer not used: a short body is read (its connection is kept), a long one cut. */
export async function discard(response: FetchResponse): Promise<void> {
  await readText(response, DISCARD_BYTES).catch(() => undefined);
}

/**
 * A refusal, or an answer without `access_token`, is an OAuthError saying which request (`what`)
 * was refused, with the server's `error` and `error_description`.
 */
export function checkTokenAnswer(response: Response, answer: TokenAnswerBody, what: string, step?: OAuthGrantStep): asserts answer is TokenAnswerBody & TokenAnswer {
  if (response.ok && answer.access_token) return;
  const why = answer.error === undefined ? `HTTP ${response.status}` : `${answer.error}${answer.error_description ? ` (${answer.error_description})` : ''}`;
  throw new OAuthError(`${what} refused: ${why}`, answer.error, step);
}

/**
 * Reads a token endpoint's answer: see {@link checkTokenAnswer}.
 * @internal
 */
export async function readTokenAnswer(response: Response, what: string, step?: OAuthGrantStep): Promise<TokenAnswer> {
  const answer = await tokenAnswerBody(response, what, step);
  checkTokenAnswer(response, answer, what, step);
  return answer;
}
