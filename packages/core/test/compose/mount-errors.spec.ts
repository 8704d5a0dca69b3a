/**
 * What a mount refuses at bootstrap, each with its stable code (docs/errors.md): names that
 * collide once prefixed, separators and namespaces that would make names MCP does not allow,
 * classes that are no server, cycles, URIs with nothing to put the namespace after, skills.
 */
import 'reflect-metadata';
import { HermesError, McpFactory, McpServer, Prompt, Resource, Skill, Tool, createLogger } from '@hermes-mcp/core';

const logger = createLogger({ level: 'silent' });

function failure(create: () => unknown): HermesError {
  try {
    create();
  } catch (error) {
    expect(error).toBeInstanceOf(HermesError);
    return error as HermesError;
  }
  throw new Error('bootstrap succeeded but was expected to fail');
}

@McpServer({ name: 'billing', version: '1' })
class Billing {
  @Tool() refund() {
    return 'refunded';
  }
  @Prompt() remind() {
    return 'pay';
  }
  @Resource({ uri: 'invoices://all' }) all() {
    return 'all';
  }
  @Resource({ uri: 'invoices://invoice/{id}' }) invoice() {
    return 'one';
  }
}

describe('HERMES_MOUNT_COLLISION', () => {
  it('refuses a tool of the mounting server named as a mounted one, naming both methods', () => {
    @McpServer({ name: 'shop', version: '1', mount: { billing: Billing } })
    class Shop {
      @Tool({ name: 'billing_refund' }) mine() {
        return 'mine';
      }
    }
    const error = failure(() => McpFactory.create(Shop, { logger }));
    expect(error.code).toBe('HERMES_MOUNT_COLLISION');
    expect(error.message).toMatch(/the tool "billing_refund" is declared twice: by Shop\.mine and by Billing\.refund \(Billing mounted at "billing"\)/);
  });

  it('refuses prompts, resource URIs and templates that collide once prefixed', () => {
    @McpServer({ name: 'a', version: '1', mount: { billing: Billing } })
    class PromptClash {
      @Prompt({ name: 'billing_remind' }) remind() {
        return 'x';
      }
    }
    @McpServer({ name: 'a', version: '1', mount: { billing: Billing } })
    class UriClash {
      @Resource({ uri: 'invoices://billing/all' }) all() {
        return 'x';
      }
    }
    @McpServer({ name: 'a', version: '1', mount: { billing: Billing } })
    class TemplateClash {
      @Resource({ uri: 'invoices://billing/invoice/{id}' }) invoice() {
        return 'x';
      }
    }
    expect(failure(() => McpFactory.create(PromptClash, { logger })).message).toMatch(/HERMES_MOUNT_COLLISION: the prompt "billing_remind"/);
    expect(failure(() => McpFactory.create(UriClash, { logger })).message).toMatch(/HERMES_MOUNT_COLLISION: the resource URI "invoices:\/\/billing\/all"/);
    expect(failure(() => McpFactory.create(TemplateClash, { logger })).message).toMatch(/HERMES_MOUNT_COLLISION: the resource template "invoices:\/\/billing\/invoice\/\{id\}"/);
  });

  it('refuses two mounts whose names meet once prefixed (a separator that joins them)', () => {
    @McpServer({ name: 'x', version: '1' })
    class Ab {
      @Tool({ name: 'b_c' }) run() {
        return 'x';
      }
    }
    @McpServer({ name: 'y', version: '1' })
    class AbC {
      @Tool({ name: 'c' }) run() {
        return 'y';
      }
    }
    @McpServer({ name: 'z', version: '1', mount: { a: Ab, a_b: AbC } })
    class Both {}
    const error = failure(() => McpFactory.create(Both, { logger }));
    expect(error.code).toBe('HERMES_MOUNT_COLLISION');
    expect(error.message).toMatch(/"a_b_c" is declared twice: by Ab\.run and by AbC\.run/);
  });
});

describe('HERMES_MOUNT_INVALID', () => {
  @McpServer({ name: 'shop', version: '1' })
  class Shop {}

  it('refuses a separator that would make tool names MCP does not allow', () => {
    for (const separator of ['/', ' ', '', ':', '__________________']) {
      const error = failure(() => McpFactory.create(Shop, { logger, mount: { billing: Billing }, mountSeparator: separator }));
      expect(error.code).toBe('HERMES_MOUNT_INVALID');
      expect(error.message).toMatch(/`mountSeparator`.*would make tool names MCP does not allow/);
    }
    @McpServer({ name: 's', version: '1', mount: { billing: Billing }, mountSeparator: '::' })
    class Declared {}
    expect(failure(() => McpFactory.create(Declared, { logger })).code).toBe('HERMES_MOUNT_INVALID');
    for (const separator of ['.', '-', '__']) {
      expect(McpFactory.create(Shop, { logger, mount: { billing: Billing }, mountSeparator: separator }).registry!.tool(`billing${separator}refund`)).toBeDefined();
    }
  });

  it('refuses a prefixed tool name longer than MCP allows, with HERMES_INVALID_NAME', () => {
    @McpServer({ name: 'long', version: '1' })
    class Long {
      @Tool({ name: 'x'.repeat(121) }) run() {
        return 'x';
      }
    }
    const error = failure(() => McpFactory.create(Shop, { logger, mount: { toolbox: Long } }));
    expect(error.code).toBe('HERMES_INVALID_NAME');
    expect(error.message).toMatch(/Long\.run, mounted at "toolbox": the tool name "toolbox_x+" must be 1–128 characters/);
  });

  it('refuses namespaces that cannot go into names and URIs', () => {
    for (const namespace of ['bil ling', 'a/b', 'a.b', '', 'x'.repeat(65), 'ünï']) {
      const error = failure(() => McpFactory.create(Shop, { logger, mount: { [namespace]: Billing } }));
      expect(error.code).toBe('HERMES_MOUNT_INVALID');
      expect(error.message).toContain(`the mount namespace "${namespace}"`);
    }
  });

  it('refuses a class without @McpServer, and a mount that is no class', () => {
    class Plain {
      @Tool() run() {
        return 'x';
      }
    }
    const plain = failure(() => McpFactory.create(Shop, { logger, mount: { plain: Plain } }));
    expect(plain.code).toBe('HERMES_MOUNT_INVALID');
    expect(plain.message).toMatch(/the mount "plain" is Plain, which has no @McpServer decorator/);
    const missing = failure(() => McpFactory.create(Shop, { logger, mount: { gone: undefined as never } }));
    expect(missing.code).toBe('HERMES_MOUNT_INVALID');
    expect(missing.message).toMatch(/the mount "gone" is not a class/);
    expect(failure(() => McpFactory.create(Shop, { logger, mount: 'billing' as never })).code).toBe('HERMES_MOUNT_INVALID');
  });

  it('refuses mounts into an McpHandler, which answers every request itself', () => {
    const handler = { serverInfo: { name: 'raw', version: '1' }, capabilities: {}, handleRequest: () => ({}) };
    const error = failure(() => McpFactory.create(handler, { logger, mount: { billing: Billing } }));
    expect(error.code).toBe('HERMES_MOUNT_INVALID');
    expect(error.message).toMatch(/an McpHandler answers every request itself/);
  });

  it('refuses two classes at one namespace (decorator and factory); the same class in both is one mount', () => {
    @McpServer({ name: 'other', version: '1' })
    class Other {}
    @McpServer({ name: 's', version: '1', mount: { billing: Billing } })
    class Declares {}
    const error = failure(() => McpFactory.create(Declares, { logger, mount: { billing: Other } }));
    expect(error.code).toBe('HERMES_MOUNT_INVALID');
    expect(error.message).toMatch(/"billing" is mounted twice, with Billing \(@McpServer\) and Other \(McpFactory\.create\)/);
    expect(McpFactory.create(Declares, { logger, mount: { billing: Billing } }).registry!.counts.tools).toBe(1);
  });

  it('refuses a server that mounts itself, directly or through another', () => {
    @McpServer({ name: 'b', version: '1' })
    class B {}
    @McpServer({ name: 'a', version: '1', mount: { b: B } })
    class A {}
    Reflect.defineMetadata('hermes:server', { name: 'b', version: '1', mount: { a: A } }, B);
    const error = failure(() => McpFactory.create(A, { logger }));
    expect(error.code).toBe('HERMES_MOUNT_INVALID');
    expect(error.message).toMatch(/makes a cycle \(A → B → A\)/);
    const self = failure(() => McpFactory.create(Shop, { logger, mount: { me: Shop } }));
    expect(self.message).toMatch(/makes a cycle \(Shop → Shop\)/);
  });

  it('refuses a mounted resource URI without scheme://, and a mounted server with skills', () => {
    @McpServer({ name: 'urn', version: '1' })
    class Urn {
      @Resource({ uri: 'urn:isbn:0451450523' }) book() {
        return 'x';
      }
    }
    const urn = failure(() => McpFactory.create(Shop, { logger, mount: { books: Urn } }));
    expect(urn.code).toBe('HERMES_MOUNT_INVALID');
    expect(urn.message).toMatch(/Urn\.book, mounted at "books": "urn:isbn:0451450523" has no scheme:\/\//);
    @McpServer({ name: 'skilled', version: '1', skills: { inline: {} } })
    class Skilled {}
    expect(failure(() => McpFactory.create(Shop, { logger, mount: { s: Skilled } })).message).toMatch(/HERMES_MOUNT_INVALID: .*serves skills/);
    @McpServer({ name: 'coded', version: '1' })
    class Coded {
      @Skill({ path: 'reports/weekly' }) weekly() {
        return '---\nname: weekly\ndescription: d\n---\n';
      }
    }
    expect(failure(() => McpFactory.create(Shop, { logger, mount: { c: Coded } })).message).toMatch(/HERMES_MOUNT_INVALID: .*Coded, mounted at "c", serves skills/);
  });
});
