import 'reflect-metadata';
import { IsInt, IsString, Min } from 'class-validator';
import { Service } from 'typedi';
import { Ctx, HermesError, McpContext, McpFactory, McpServer, Prompt, Resource, Tool, createLogger } from '@hermes-mcp/core';

const logger = createLogger({ level: 'silent' });
const create = (cls: Function) => McpFactory.create(cls as new () => unknown, { logger });

function bootstrapError(cls: Function): HermesError {
  try {
    create(cls);
  } catch (error) {
    expect(error).toBeInstanceOf(HermesError);
    return error as HermesError;
  }
  throw new Error('bootstrap succeeded but was expected to fail');
}

class NameInput {
  @IsString() name!: string;
}

class CountInput {
  @IsInt() @Min(1) count!: number;
}

interface NotAClass {
  name: string;
}

describe('scanner', () => {
  it('reads tools, resources, templates and prompts of the server class and its components', () => {
    class Extra {
      @Tool({ description: 'from a component' }) extra(input: CountInput) {
        return input.count;
      }
    }
    @McpServer({ name: 's', version: '1', components: [Extra] })
    class Server {
      @Tool() hello(input: NameInput) {
        return input.name;
      }
      @Resource({ uri: 'test://static' }) stat() {
        return 'x';
      }
      @Resource({ uri: 'test://item/{id}' }) item(params: { id: string }) {
        return params.id;
      }
      @Prompt() greet(args: NameInput) {
        return args.name;
      }
    }
    const registry = create(Server).registry!;
    expect(registry.counts).toEqual({ tools: 2, resources: 1, templates: 1, prompts: 1 });
    expect(registry.tool('extra')!.descriptor.description).toBe('from a component');
    expect(registry.tool('hello')!.descriptor.inputSchema).toMatchObject({ type: 'object', required: ['name'] });
    expect(registry.prompt('greet')!.descriptor.arguments).toEqual([expect.objectContaining({ name: 'name', required: true })]);
    expect(registry.resolveResource('test://item/42')!.variables).toEqual({ id: '42' });
  });

  it('gives a method without parameters an empty object input schema', () => {
    @McpServer({ name: 's', version: '1' })
    class Server {
      @Tool() now() {
        return 'now';
      }
    }
    expect(create(Server).registry!.tool('now')!.descriptor.inputSchema).toEqual({ type: 'object', properties: {} });
  });

  it('injects constructor dependencies with typedi', async () => {
    @Service()
    class Clock {
      now() {
        return 'tick';
      }
    }
    @McpServer({ name: 's', version: '1' })
    class Server {
      constructor(private readonly clock: Clock) {}
      @Tool() time() {
        return this.clock.now();
      }
    }
    const tool = create(Server).registry!.tool('time')!;
    expect(await tool.call(undefined, undefined)).toBe('tick');
  });

  it('fails with HERMES_CONSTRUCTION_FAILED and says to add @Service() when a dependency is not registered', () => {
    class Unregistered {}
    @McpServer({ name: 's', version: '1' })
    class Server {
      constructor(readonly dep: Unregistered) {}
    }
    const error = bootstrapError(Server);
    expect(error.code).toBe('HERMES_CONSTRUCTION_FAILED');
    expect(error.message).toContain('@Service()');
    expect(error.message).toContain('Server');
    // typedi's own message ends with a full stop, and ours went on after it ("decorator.. Every").
    expect(error.message).toMatch(/decorator\. Every class Server takes/);
  });

  it('fails with HERMES_DUPLICATE_NAME naming both methods', () => {
    class A {
      @Tool({ name: 'same' }) one() {
        return 1;
      }
    }
    @McpServer({ name: 's', version: '1', components: [A] })
    class Server {
      @Tool({ name: 'same' }) two() {
        return 2;
      }
    }
    const error = bootstrapError(Server);
    expect(error.code).toBe('HERMES_DUPLICATE_NAME');
    expect(error.message).toContain('Server.two');
    expect(error.message).toContain('A.one');
  });

  it('fails with HERMES_DUPLICATE_NAME for two prompts or two resources with one URI', () => {
    @McpServer({ name: 's', version: '1' })
    class Prompts {
      @Prompt({ name: 'p' }) a() {
        return 'a';
      }
      @Prompt({ name: 'p' }) b() {
        return 'b';
      }
    }
    expect(bootstrapError(Prompts).code).toBe('HERMES_DUPLICATE_NAME');
    @McpServer({ name: 's', version: '1' })
    class Resources {
      @Resource({ uri: 'x://y' }) a() {
        return 'a';
      }
      @Resource({ uri: 'x://y', name: 'other' }) b() {
        return 'b';
      }
    }
    expect(bootstrapError(Resources).code).toBe('HERMES_DUPLICATE_NAME');
  });

  it('fails with HERMES_UNRESOLVED_TYPE when the input is an interface, and says how to fix it', () => {
    @McpServer({ name: 's', version: '1' })
    class Server {
      @Tool() bad(input: NotAClass) {
        return input.name;
      }
    }
    const error = bootstrapError(Server);
    expect(error.code).toBe('HERMES_UNRESOLVED_TYPE');
    expect(error.message).toContain('Server.bad');
    expect(error.message).toContain('@Tool({ input: MyClass })');
  });

  it('fails with HERMES_UNRESOLVED_TYPE when there is no decorator metadata (esbuild, tsx), and works with the explicit form', () => {
    @McpServer({ name: 's', version: '1' })
    class Server {
      @Tool() implicit(input: NameInput) {
        return input.name;
      }
    }
    Reflect.deleteMetadata('design:paramtypes', Server.prototype, 'implicit');
    const error = bootstrapError(Server);
    expect(error.code).toBe('HERMES_UNRESOLVED_TYPE');
    expect(error.message).toContain('emitDecoratorMetadata');

    @McpServer({ name: 's', version: '1' })
    class Explicit {
      @Tool({ input: NameInput }) explicit(input: NameInput) {
        return input.name;
      }
    }
    Reflect.deleteMetadata('design:paramtypes', Explicit.prototype, 'explicit');
    expect(create(Explicit).registry!.tool('explicit')!.inputClass).toBe(NameInput);
  });

  it('places the context where @Ctx() says, or second, or by its type', async () => {
    @McpServer({ name: 's', version: '1' })
    class Server {
      @Tool() first(@Ctx() ctx: McpContext) {
        return ctx;
      }
      @Tool() second(input: NameInput, ctx: McpContext) {
        return [input, ctx];
      }
      @Tool({ input: NameInput }) swapped(@Ctx() ctx: McpContext, input: NameInput) {
        return [input, ctx];
      }
      @Tool() typed(ctx: McpContext) {
        return ctx;
      }
    }
    const registry = create(Server).registry!;
    const ctx = { marker: true };
    const input = { name: 'n' };
    expect(await registry.tool('first')!.call(input, ctx)).toBe(ctx);
    expect(registry.tool('first')!.inputClass).toBeUndefined();
    expect(await registry.tool('second')!.call(input, ctx)).toEqual([input, ctx]);
    expect(await registry.tool('swapped')!.call(input, ctx)).toEqual([input, ctx]);
    expect(await registry.tool('typed')!.call(input, ctx)).toBe(ctx);
  });

  it('inherits handlers from a base class; an overriding method replaces the base one', () => {
    class Base {
      @Tool({ description: 'base' }) shared() {
        return 'base';
      }
      @Tool() onlyBase() {
        return 'b';
      }
    }
    @McpServer({ name: 's', version: '1' })
    class Server extends Base {
      @Tool({ description: 'derived' }) override shared() {
        return 'derived';
      }
    }
    const registry = create(Server).registry!;
    expect(registry.counts.tools).toBe(2);
    expect(registry.tool('shared')!.descriptor.description).toBe('derived');
  });

  it('rejects tool names MCP does not allow', () => {
    @McpServer({ name: 's', version: '1' })
    class Server {
      @Tool({ name: 'has space' }) t() {
        return 1;
      }
    }
    expect(bootstrapError(Server).code).toBe('HERMES_INVALID_NAME');
  });

  it('rejects malformed resource URIs and templates', () => {
    @McpServer({ name: 's', version: '1' })
    class Template {
      @Resource({ uri: 'x://a/{id' }) r() {
        return 1;
      }
    }
    expect(bootstrapError(Template).code).toBe('HERMES_INVALID_URI_TEMPLATE');
    @McpServer({ name: 's', version: '1' })
    class Relative {
      @Resource({ uri: 'not a uri' }) r() {
        return 1;
      }
    }
    expect(bootstrapError(Relative).code).toBe('HERMES_INVALID_URI_TEMPLATE');
  });

  it('rejects a class without @McpServer, and @McpServer without name or version', () => {
    class Plain {}
    expect(bootstrapError(Plain).code).toBe('HERMES_NOT_A_SERVER');
    @McpServer({ name: '', version: '1' })
    class Nameless {}
    expect(bootstrapError(Nameless).code).toBe('HERMES_INVALID_OPTIONS');
  });
});
