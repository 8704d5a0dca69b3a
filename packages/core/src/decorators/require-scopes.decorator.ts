import { HermesError } from '../errors';
import { SCOPES, addToListMetadata } from '../metadata/keys';

/** A scope as RFC 6749 §3.3 spells one: printable ASCII without space, quote or backslash. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/**
 * The OAuth scopes every tool, resource and prompt of a class needs (on a component class), or
 * one handler needs (on a method), besides those of its decorator and of the server.
 *
 * @example
 * \@RequireScopes('notes:read')
 * class NoteTools { \@Tool() list() {…}  \@Tool({ scopes: ['notes:write'] }) add(input: NewNote) {…} }
 */
export function RequireScopes(...scopes: string[]): ClassDecorator & MethodDecorator {
  checkScopes(scopes, '@RequireScopes');
  return (target: object, property?: string | symbol) => addToListMetadata(SCOPES, scopes, target, property, false);
}

/** Throws at start-up for a scope no token could carry. @internal */
export function checkScopes(scopes: unknown, where: string): void {
  if (scopes === undefined) return;
  if (!Array.isArray(scopes) || !scopes.every((s) => typeof s === 'string' && SCOPE_TOKEN.test(s))) {
    throw new HermesError('HERMES_INVALID_OPTIONS', `${where}: scopes must be strings of printable ASCII without spaces, quotes or backslashes (RFC 6749 §3.3).`);
  }
}
