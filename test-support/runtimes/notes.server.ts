/**
 * The decorated server every runtime test serves: a notebook with a validated tool, a resource
 * that the tool changes (its update reaches the clients listening for it, from another request),
 * and a prompt. `input:` and `args:` are named in the decorators because a bundle (the worker's)
 * carries no decorator metadata; Bun and Deno, which emit it, would not need them.
 */
import 'reflect-metadata';
import { IsOptional, IsString, Length } from 'class-validator';
import { McpFactory, McpServer, Prompt, Resource, Tool, createWebHandler, type WebHandler } from '@hermes-mcp/core';

/** Input of `add_note`. */
export class AddNoteInput {
  @IsString() @Length(1, 100) text!: string;
}

/** Arguments of the `review` prompt. */
export class ReviewArgs {
  @IsOptional() @IsString() focus?: string;
}

/** The notes so far, who to tell when they change, and how many listen streams are open. */
const notebook = { notes: [] as string[], changed: (_uri: string): void => undefined, streams: (): number => 0 };

/** The URI of the resource that lists every note. */
export const NOTES_URI = 'notes://all';

@McpServer({ name: 'runtime-notes', version: '1.0.0' })
export class NotesServer {
  @Tool({ name: 'add_note', description: 'Adds a note', input: AddNoteInput })
  add(input: AddNoteInput) {
    notebook.notes.push(input.text);
    notebook.changed(NOTES_URI);
    return `${notebook.notes.length} note(s)`;
  }

  @Tool({ name: 'open_streams', description: 'How many subscriptions/listen streams are open (the tests wait on it)' })
  openStreams() {
    return String(notebook.streams());
  }

  @Resource({ uri: NOTES_URI, name: 'notes', mimeType: 'text/plain' })
  all() {
    return notebook.notes.join('\n');
  }

  @Prompt({ name: 'review', description: 'Review the notes', args: ReviewArgs })
  review(args: ReviewArgs) {
    return `Review my notes${args.focus ? ` about ${args.focus}` : ''}:\n${notebook.notes.join('\n')}`;
  }
}

/** The Web handler of {@link NotesServer} at `/mcp`, with its app told to announce note changes. */
export function notesHandler(): WebHandler {
  const app = McpFactory.create(NotesServer);
  notebook.changed = (uri) => app.notifyResourceUpdated(uri);
  notebook.streams = () => app.engine.listenStreams;
  return createWebHandler(app, { path: '/mcp' });
}
