import 'reflect-metadata';
import { IsString } from 'class-validator';
import { Service } from 'typedi';
import { McpContext, McpFactory, McpMiddleware, McpServer, Middleware, Tool, ToolError, Use, createLogger } from '@hermes-mcp/core';

const logger = createLogger({ level: 'silent' });

class Msg {
  @IsString() text!: string;
}

describe('middleware', () => {
  it('runs server, class and method middleware as an onion, outermost first', async () => {
    const trail: string[] = [];
    const mark =
      (name: string): Middleware =>
      async (_ctx, next) => {
        trail.push(`${name}>`);
        const result = await next();
        trail.push(`<${name}`);
        return result;
      };
    @Use(mark('component'))
    class Component {
      @Use(mark('method'))
      @Tool()
      run(input: Msg) {
        trail.push('handler');
        return input.text;
      }
    }
    @McpServer({ name: 's', version: '1', components: [Component], use: [mark('server')] })
    class Server {}
    const tool = McpFactory.create(Server, { logger }).registry!.tool('run')!;
    expect(await tool.call({ text: 'x' }, {})).toBe('x');
    expect(trail).toEqual(['server>', 'component>', 'method>', 'handler', '<method', '<component', '<server']);
  });

  it('builds middleware classes with typedi, dependencies included', async () => {
    @Service()
    class Clock {
      now() {
        return 'noon';
      }
    }
    @Service()
    class Stamp implements McpMiddleware {
      constructor(private readonly clock: Clock) {}
      async use(ctx: McpContext, next: () => Promise<unknown>) {
        ctx.assigns.at = this.clock.now();
        return next();
      }
    }
    @McpServer({ name: 's', version: '1' })
    class Server {
      @Use(Stamp) @Tool() when(ctx: McpContext) {
        return ctx.assigns.at;
      }
    }
    const tool = McpFactory.create(Server, { logger }).registry!.tool('when')!;
    expect(await tool.call(undefined, { assigns: {} })).toBe('noon');
  });

  it('lets a guard stop the call by throwing, and refuses next() twice', async () => {
    const deny: Middleware = () => {
      throw new ToolError('no');
    };
    const twice: Middleware = async (_ctx, next) => {
      await next();
      return next();
    };
    @McpServer({ name: 's', version: '1' })
    class Server {
      calls = 0;
      @Use(deny) @Tool() guarded() {
        return 'never';
      }
      @Use(twice) @Tool() doubled() {
        return ++this.calls;
      }
    }
    const registry = McpFactory.create(Server, { logger }).registry!;
    await expect(Promise.resolve().then(() => registry.tool('guarded')!.call(undefined, {}))).rejects.toThrow('no');
    await expect(registry.tool('doubled')!.call(undefined, {})).rejects.toThrow('next() called more than once');
  });
});
