/**
 * What `hermes-mcp` does when a person is at a terminal: it asks the server's elicitations there
 * (the question on stderr, the answer from stdin) and shows the progress of a call on one line of
 * stderr. Without a terminal it does neither, so a script's stdin is never read and its logs get
 * no control characters.
 */
import { createInterface, Interface } from 'node:readline';
import type { ProgressUpdate } from '@hermes-mcp/protocol';
import type { ElicitationAnswer, ElicitationRequest } from './client';

/**
 * What this process may do on its terminal: `ask` when stdin and stderr are both a TTY (someone
 * can read the question and type the answer), `progress` when stderr is one. The one place the
 * CLI decides it.
 */
export function terminal(): { ask: boolean; progress: boolean } {
  return { ask: process.stdin.isTTY === true && process.stderr.isTTY === true, progress: process.stderr.isTTY === true };
}

/** The progress of a call, redrawn on one line of a terminal. */
export class ProgressLine {
  private shown = false;

  constructor(private readonly output: NodeJS.WriteStream) {}

  /** Draws `update` over the previous one (cut to the terminal's width: a wrapped line cannot be redrawn). */
  show(update: ProgressUpdate): void {
    const { progress, total, message } = update;
    const share = total !== undefined && total > 0 ? ` (${Math.round((100 * progress) / total)}%)` : '';
    const line = `progress ${progress}${total !== undefined ? `/${total}` : ''}${share}${message ? ` ${message}` : ''}`;
    this.output.write(`\r\x1b[2K${line.slice(0, Math.max(10, (this.output.columns || 80) - 1))}`);
    this.shown = true;
  }

  /** Erases the line, before anything else is written to the terminal. */
  clear(): void {
    if (this.shown) this.output.write('\r\x1b[2K');
    this.shown = false;
  }
}

/** One property of a form elicitation's `requestedSchema` (MCP restricts them to primitives). */
interface Field {
  type?: string;
  title?: string;
  description?: string;
  default?: unknown;
  enum?: unknown[];
  oneOf?: Array<{ const?: unknown; title?: string }>;
  anyOf?: Array<{ const?: unknown; title?: string }>;
  items?: Field;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
}

/** The values a field may take, with their titles: `enum` (+ `enumNames`), or `oneOf`/`anyOf` of `const`s. */
function choicesOf(field: Field, names?: unknown): Array<{ value: unknown; title?: string }> | undefined {
  if (Array.isArray(field.enum)) return field.enum.map((value, i) => ({ value, title: Array.isArray(names) ? String(names[i]) : undefined }));
  const titled = field.oneOf ?? field.anyOf;
  return Array.isArray(titled) ? titled.map((option) => ({ value: option.const, title: option.title })) : undefined;
}

/**
 * The value `text` stands for in `field`, or why it does not fit (the person is asked again).
 * The server checks the answer too; this catches a typo while the person is still there.
 */
function valueOf(field: Field & { enumNames?: unknown }, text: string): { value: unknown } | { problem: string } {
  const choices = choicesOf(field, field.enumNames) ?? (field.type === 'array' && field.items ? choicesOf(field.items) : undefined);
  if (field.type === 'array') {
    const values = text.split(',').map((part) => part.trim());
    const wrong = choices ? values.filter((v) => !choices.some((c) => String(c.value) === v)) : [];
    if (wrong.length > 0) return { problem: `not one of the choices: ${wrong.join(', ')}` };
    return { value: values };
  }
  if (choices) {
    const chosen = choices.find((c) => String(c.value) === text);
    return chosen ? { value: chosen.value } : { problem: `answer one of: ${choices.map((c) => String(c.value)).join(', ')}` };
  }
  switch (field.type) {
    case 'boolean':
      if (/^(y|yes|true)$/i.test(text)) return { value: true };
      if (/^(n|no|false)$/i.test(text)) return { value: false };
      return { problem: 'answer y or n' };
    case 'integer':
    case 'number': {
      const value = Number(text);
      if (!Number.isFinite(value) || (field.type === 'integer' && !Number.isInteger(value))) return { problem: `not ${field.type === 'integer' ? 'an integer' : 'a number'}` };
      if (field.minimum !== undefined && value < field.minimum) return { problem: `at least ${field.minimum}` };
      if (field.maximum !== undefined && value > field.maximum) return { problem: `at most ${field.maximum}` };
      return { value };
    }
    default:
      if (field.minLength !== undefined && text.length < field.minLength) return { problem: `at least ${field.minLength} characters` };
      if (field.maxLength !== undefined && text.length > field.maxLength) return { problem: `at most ${field.maxLength} characters` };
      return { value: text };
  }
}

/** How a field is introduced: its name, what it is, its choices, whether it must be given, its default. */
function labelOf(name: string, field: Field & { enumNames?: unknown }, required: boolean): string {
  const choices = choicesOf(field, field.enumNames) ?? (field.type === 'array' && field.items ? choicesOf(field.items) : undefined);
  const kind = choices
    ? `${field.type === 'array' ? 'some of, by commas' : 'one of'}: ${choices.map((c) => (c.title && c.title !== String(c.value) ? `${String(c.value)} (${c.title})` : String(c.value))).join(', ')}`
    : field.type === 'boolean'
      ? 'y/n'
      : (field.type ?? 'text');
  const about = field.description ?? field.title;
  const fallback = field.default !== undefined ? `, default ${JSON.stringify(field.default)}` : required ? ', required' : ', Enter to leave out';
  return `  ${name}${about ? ` — ${about}` : ''} [${kind}${fallback}]: `;
}

/**
 * Answers the server's elicitations at the terminal. A form is asked field by field (an answer
 * that does not fit is asked again, saying why); a URL is shown to open. The person first says
 * whether to answer at all: `y` (accept), `n` (decline), `c` (cancel); the end of the input
 * (Ctrl-D) cancels.
 */
export class TerminalQuestions {
  private lines?: Interface = undefined;
  private iterator?: AsyncIterator<string> = undefined;

  constructor(
    private readonly input: NodeJS.ReadableStream,
    private readonly output: NodeJS.WritableStream,
  ) {}

  /** Asks `request` and returns the person's answer. */
  async elicit(request: ElicitationRequest): Promise<ElicitationAnswer> {
    this.output.write(`\nThe server asks: ${request.message}\n`);
    if (request.mode === 'url') this.output.write(`  open ${String(request.url)}\n`);
    const first = await this.ask(request.mode === 'url' ? 'Done? [Y]es, [n]o (decline), [c]ancel: ' : 'Answer? [Y]es, [n]o (decline), [c]ancel: ');
    if (first === undefined || /^c(ancel)?$/i.test(first)) return { action: 'cancel' };
    if (/^n(o)?$/i.test(first)) return { action: 'decline' };
    if (request.mode === 'url') return { action: 'accept' };
    const schema = (request.requestedSchema ?? {}) as { properties?: Record<string, Field>; required?: string[] };
    const content: Record<string, unknown> = {};
    for (const [name, field] of Object.entries(schema.properties ?? {})) {
      const required = schema.required?.includes(name) === true;
      for (;;) {
        const text = await this.ask(labelOf(name, field, required));
        if (text === undefined) return { action: 'cancel' };
        if (text === '') {
          if (field.default !== undefined) content[name] = field.default;
          else if (required) {
            this.output.write(`    ${name} is required\n`);
            continue;
          }
          break;
        }
        const read = valueOf(field, text);
        if ('value' in read) {
          content[name] = read.value;
          break;
        }
        this.output.write(`    ${read.problem}\n`);
      }
    }
    return { action: 'accept', content };
  }

  /** Stops reading the terminal. */
  close(): void {
    this.lines?.close();
  }

  /** One line from the person after `query`; undefined at the end of the input. */
  private async ask(query: string): Promise<string | undefined> {
    this.output.write(query);
    // One reader for the whole run: lines typed ahead are kept for the next question.
    this.lines ??= createInterface({ input: this.input, terminal: false });
    this.iterator ??= this.lines[Symbol.asyncIterator]();
    const next = await this.iterator.next();
    return next.done ? undefined : next.value.trim();
  }
}
