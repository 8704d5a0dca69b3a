import { setTimeout as sleep } from 'node:timers/promises';
import { IsInt, IsOptional, IsString, Max, Min } from 'class-validator';
import { McpApp, McpContext, McpServer, Resource, Tool, ToolError } from '@hermes-mcp/core';
import { Service } from 'typedi';

/** This instance of the cluster. */
@Service()
export class Instance {
  /** This process's name in the cluster (`INSTANCE`), shown by `whoami`. */
  name = process.env.INSTANCE ?? String(process.pid);
  /** How many times `status://counter` changed here. */
  counter = 0;
}

export class StepsInput {
  /** How many steps (each reports progress). */
  @IsInt() @Min(1) @Max(1000) steps!: number;
  /** Milliseconds per step. */
  @IsInt() @Min(0) @Max(60_000) delayMs!: number;
  /** Names the call in the notification its cancellation raises. */
  @IsOptional() @IsString() label?: string;
}

export class UriInput {
  /** The resource that changed. */
  @IsString() uri!: string;
}

export class NameInput {
  /** The name of the tool to add. */
  @IsString() name!: string;
}

export class NameForm {
  /** Your name. */
  @IsString() name!: string;
}

export class JobInput {
  /** How long the job runs, in milliseconds (it stops when cancelled). */
  @IsInt() @Min(0) @Max(600_000) durationMs!: number;
  /** A label echoed in the result. */
  @IsOptional() @IsString() label?: string;
}

/** A server whose every feature crosses instances: elicitation, progress, subscriptions, list changes, tasks. */
@McpServer({ name: 'hermes-cluster', version: '0.1.0', description: 'One server, many instances, one Redis' })
export class ClusterServer {
  constructor(private readonly instance: Instance) {}

  @Tool({ description: 'Which instance answered' })
  whoami() {
    return this.instance.name;
  }

  @Tool({ description: 'Asks the user for their name (form elicitation), and greets them' })
  async greet(ctx: McpContext) {
    const answer = await ctx.elicit('What is your name?', NameForm);
    if (answer.action !== 'accept') throw new ToolError(`no name: ${answer.action}`);
    return `hello ${answer.content.name}, from ${this.instance.name}`;
  }

  @Tool({ description: 'Works in steps, reporting progress; when cancelled, tells subscribers of cancelled://{label}' })
  async steps(input: StepsInput, ctx: McpContext) {
    for (let step = 1; step <= input.steps; step++) {
      try {
        await sleep(input.delayMs, undefined, { signal: ctx.signal });
      } catch (error) {
        // Seen from any instance: the cancellation reached the one running the call.
        if (input.label) ctx.notifyResourceUpdated(`cancelled://${input.label}`);
        throw error;
      }
      await ctx.progress(step, input.steps, `step ${step}`);
    }
    return `${input.steps} steps on ${this.instance.name}`;
  }

  @Tool({ description: 'Tells subscribers (on every instance) that a resource changed' })
  touch(input: UriInput, ctx: McpContext) {
    ctx.notifyResourceUpdated(input.uri);
    return `touched ${input.uri} on ${this.instance.name}`;
  }

  @Tool({ description: 'Adds a tool (every instance tells its clients the list changed)' })
  add_tool(input: NameInput, ctx: McpContext) {
    McpApp.of(ctx).addTool({ name: input.name, description: `added on ${this.instance.name}` }, () => `hello from ${input.name}`);
    return `added ${input.name} on ${this.instance.name}`;
  }

  @Tool({ description: 'A long job: a task when the client declares the tasks extension (MCP 2026-07-28)', task: 'optional' })
  async job(input: JobInput, ctx: McpContext) {
    await sleep(input.durationMs, undefined, { signal: ctx.signal });
    return `${input.label ?? 'job'} done on ${this.instance.name}`;
  }

  @Resource({ uri: 'status://counter', name: 'counter', description: 'A counter (subscribable)', mimeType: 'text/plain' })
  counter() {
    return String(this.instance.counter);
  }
}
