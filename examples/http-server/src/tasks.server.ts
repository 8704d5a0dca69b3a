import { setTimeout as sleep } from 'node:timers/promises';
import { IsBoolean, IsIn, IsOptional, IsString, Length, Matches } from 'class-validator';
import { Service } from 'typedi';
import { Description, McpContext, McpServer, Prompt, Resource, Tool, ToolError } from '@hermes-mcp/core';

/** A task of the example board. */
export interface Task {
  id: string;
  title: string;
  done: boolean;
  priority: 'low' | 'normal' | 'high';
}

/** Input of `add_task`. */
export class AddTaskInput {
  @Description('What to do') @IsString() @Length(1, 120) title!: string;
  @Description('low, normal or high') @IsOptional() @IsIn(['low', 'normal', 'high']) priority?: 'low' | 'normal' | 'high';
}

/** Input of `complete_task`. */
export class TaskRef {
  @Description('The task id') @Matches(/^\d+$/) id!: string;
}

/** Input of `list_tasks`. */
export class ListInput {
  @Description('Only open tasks') @IsOptional() @IsBoolean() open?: boolean;
}

/** Arguments of the `plan_day` prompt. */
export class PlanArgs {
  @Description('How many hours there are') @IsOptional() @IsString() hours?: string;
}

/** The example's in-memory task board. */
@Service()
export class TaskBoard {
  private readonly tasks = new Map<string, Task>();
  private next = 1;

  add(title: string, priority: Task['priority']): Task {
    const task: Task = { id: String(this.next++), title, done: false, priority };
    this.tasks.set(task.id, task);
    return task;
  }

  get(id: string): Task | undefined {
    return this.tasks.get(id);
  }

  list(open?: boolean): Task[] {
    return [...this.tasks.values()].filter((t) => !open || !t.done);
  }
}

/** A task board over MCP: tools to change it, a resource and a template to read it, a prompt. */
@McpServer({ name: 'hermes-tasks', version: '0.1.0', title: 'Hermes task board', instructions: 'Keep a to-do list: add_task, complete_task, list_tasks.' })
export class TasksServer {
  constructor(private readonly board: TaskBoard) {}

  @Tool({ name: 'add_task', description: 'Add a task to the board' })
  addTask(input: AddTaskInput) {
    // Optional inputs may be null as well as absent (@IsOptional accepts both): default both.
    return this.board.add(input.title, input.priority ?? 'normal');
  }

  @Tool({ name: 'complete_task', description: 'Mark a task done' })
  complete(input: TaskRef) {
    const task = this.board.get(input.id);
    if (!task) throw new ToolError(`there is no task ${input.id}`);
    task.done = true;
    return task;
  }

  @Tool({ name: 'list_tasks', description: 'List the tasks', annotations: { readOnlyHint: true } })
  async listTasks(input: ListInput, ctx: McpContext) {
    const tasks = this.board.list(input.open === true);
    for (let i = 0; i < tasks.length; i++) {
      await ctx.progress(i + 1, tasks.length, `task ${tasks[i].id}`);
      await sleep(5);
    }
    return tasks.map((t) => `${t.done ? '[x]' : '[ ]'} #${t.id} ${t.title} (${t.priority})`).join('\n') || 'no tasks';
  }

  @Resource({ uri: 'tasks://all', name: 'tasks', description: 'Every task, as JSON', mimeType: 'application/json' })
  all() {
    return this.board.list();
  }

  @Resource({ uri: 'tasks://task/{id}', name: 'task', description: 'One task, as JSON', mimeType: 'application/json', params: TaskRef })
  one(ref: TaskRef) {
    return this.board.get(ref.id) ?? { error: `no task ${ref.id}` };
  }

  @Prompt({ name: 'plan_day', description: 'Plan the day around the open tasks' })
  plan(args: PlanArgs) {
    const open = this.board
      .list(true)
      .map((t) => `- ${t.title} (${t.priority})`)
      .join('\n');
    return `I have ${args.hours ?? 'some'} hours. Plan my day around these tasks:\n${open || '(none)'}`;
  }
}
