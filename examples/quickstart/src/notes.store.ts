import { Service } from 'typedi';

/** A note kept by the example server. */
export interface Note {
  id: string;
  title: string;
  body: string;
  tags: string[];
  createdAt: string;
}

/** An in-memory note store; typedi injects it into the server class. */
@Service()
export class NotesStore {
  private readonly notes = new Map<string, Note>();
  private nextId = 1;

  constructor() {
    this.add('Welcome', 'This note was created when the server started.', ['hello']);
  }

  add(title: string, body: string, tags: string[]): Note {
    const note: Note = { id: String(this.nextId++), title, body, tags, createdAt: new Date().toISOString() };
    this.notes.set(note.id, note);
    return note;
  }

  get(id: string): Note | undefined {
    return this.notes.get(id);
  }

  all(): Note[] {
    return [...this.notes.values()];
  }

  search(query: string, limit: number): Note[] {
    const q = query.toLowerCase();
    return this.all()
      .filter((n) => n.title.toLowerCase().includes(q) || n.body.toLowerCase().includes(q) || n.tags.includes(q))
      .slice(0, limit);
  }
}
