import { McpContext, McpServer, Prompt, Resource, Tool, ToolError } from '@hermes-mcp/core';
import { AddInput, AddNoteInput, NoteParams, SearchInput, SumOutput, SummarizeArgs } from './dto';
import { NotesStore } from './notes.store';

/** The quickstart server: a notebook with validated tools, a resource, a template and a prompt. */
@McpServer({
  name: 'hermes-quickstart',
  version: '0.1.0',
  title: 'Hermes quickstart notes',
  instructions: 'A small notebook. Use add_note to save notes and search_notes to find them; read notes://all for everything.',
})
export class NotesServer {
  constructor(private readonly notes: NotesStore) {}

  @Tool({ name: 'add_note', description: 'Save a note and return it', annotations: { destructiveHint: false } })
  addNote(input: AddNoteInput) {
    // An optional property may arrive as null (class-validator's @IsOptional lets it through, and the
    // published schema says so): default it here, not with a default parameter (which only covers undefined).
    return this.notes.add(input.title, input.body, input.tags ?? []);
  }

  @Tool({ name: 'search_notes', description: 'Find notes whose title, body or tags contain the query', annotations: { readOnlyHint: true } })
  async searchNotes(input: SearchInput, ctx: McpContext) {
    await ctx.progress(0, 1, 'searching');
    const found = this.notes.search(input.query, input.limit ?? 10);
    await ctx.progress(1, 1, `found ${found.length}`);
    if (found.length === 0) throw new ToolError(`no note matches "${input.query}"`);
    return found.map((n) => `#${n.id} ${n.title}`).join('\n');
  }

  @Tool({ description: 'Add two numbers', input: AddInput, output: SumOutput, annotations: { readOnlyHint: true } })
  add(input: AddInput): SumOutput {
    return { sum: input.a + input.b };
  }

  @Tool({ title: 'Server time', description: 'The current time on the server (ISO 8601)' })
  now() {
    return new Date().toISOString();
  }

  @Resource({ uri: 'notes://all', name: 'all-notes', description: 'Every note, as JSON', mimeType: 'application/json' })
  allNotes() {
    return this.notes.all();
  }

  @Resource({ uri: 'notes://note/{id}', name: 'note', description: 'One note, as Markdown', mimeType: 'text/markdown' })
  note(params: NoteParams) {
    const note = this.notes.get(params.id);
    if (!note) return `# Note ${params.id}\n\n(no such note)`;
    return `# ${note.title}\n\n${note.body}\n`;
  }

  @Prompt({ name: 'summarize', description: 'Ask the model to summarise the notes' })
  summarize(args: SummarizeArgs) {
    const notes = args.topic ? this.notes.search(args.topic, 50) : this.notes.all();
    const list = notes.map((n) => `- ${n.title}: ${n.body}`).join('\n');
    return `Summarise these notes${args.topic ? ` about ${args.topic}` : ''} (${args.style ?? 'brief'}):\n${list}`;
  }
}
