/**
 * The shape of the source tree, held by a test so it cannot drift back: no import cycle among
 * core's files (type-only imports count — a cycle of types is a cycle of design, and it is how the
 * runtime ones start), core's layers run one way, no src file grows past 700 lines, each
 * package's src imports only the packages its package.json lists, and the packages depend on
 * each other one way (the gateway above core and the client).
 *
 * Imports are read with the TypeScript compiler's parser: `import`, `import type`, `export … from`,
 * `export type … from`, `import('…')`, `require('…')` and `import('…')` types.
 */
import * as fs from 'node:fs';
import { builtinModules } from 'node:module';
import * as path from 'node:path';
import * as ts from 'typescript';

const PACKAGES = path.resolve(__dirname, '../../..');
const CORE_SRC = path.join(PACKAGES, 'core/src');
const MAX_LINES = 700;

/**
 * Core's layers, lowest first: a file may import files of its own layer or of a lower one, never of
 * a higher one. A file belongs to the layer of the longest path below that names it; a new folder
 * must be placed here (the test says so), which is the moment to decide where it belongs.
 */
const LAYERS: { layer: string; paths: string[] }[] = [
  // What every layer may use: errors, the logger, secrets, the typedi container, the diagnostics
  // channels, and the guarded reads of other libraries' internals.
  { layer: 'base', paths: ['errors.ts', 'logger.ts', 'secret.ts', 'container.ts', 'diagnostics.ts', 'interop/'] },
  // The request context handlers and middleware receive: options and decorators name it.
  { layer: 'context', paths: ['context/'] },
  // What decorators record, and the decorators: they depend on nothing that runs a server.
  { layer: 'metadata', paths: ['metadata/', 'decorators/'] },
  // Input schemas and validation from the metadata; results shaped per revision; the store contracts.
  { layer: 'schema', paths: ['schema/', 'validation/', 'results/', 'stores/', 'skills/'] },
  // The engine: eras, the method table's owners, connections, the modern era and its header rules,
  // tasks, the registry it answers from, and scopes (a guard the scanner installs).
  { layer: 'engine', paths: ['engine/', 'bootstrap/', 'auth/scopes.ts'] },
  // Transports frame bytes for the engine; the HTTP endpoint and the OAuth resource server it asks.
  { layer: 'transports', paths: ['transports/', 'auth/'] },
  // The app (McpFactory, McpApp.listen on stdio) and what serves it: the Web and Node adapters,
  // and the package entries.
  {
    layer: 'adapters',
    paths: ['bootstrap/factory.ts', 'transports/http/web.ts', 'transports/http/node.ts', 'index.ts', 'internal.ts', 'adapter.ts'],
  },
];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** Every module specifier a file names, type-only ones included. */
function specifiersOf(file: string): string[] {
  const source = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const literal = (node: ts.Node | undefined) => {
    if (node && ts.isStringLiteralLike(node)) found.push(node.text);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) literal(node.moduleSpecifier);
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      literal(node.moduleReference.expression);
    } else if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const dynamic = callee.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(callee) && callee.text === 'require');
      if (dynamic) literal(node.arguments[0]);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) literal(node.argument.literal);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The file a relative specifier names (`./x` → `x.ts` or `x/index.ts`). */
function resolveRelative(from: string, specifier: string): string {
  const base = path.resolve(path.dirname(from), specifier);
  for (const candidate of [`${base}.ts`, path.join(base, 'index.ts'), base]) {
    if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
  }
  throw new Error(`${from} imports ${specifier}, which names no file`);
}

/** The import graph of core's src: file (relative to src) → the src files it imports. */
function coreGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(CORE_SRC)) {
    const relative = specifiersOf(file).filter((s) => s.startsWith('.'));
    graph.set(
      path.relative(CORE_SRC, file),
      relative.map((s) => path.relative(CORE_SRC, resolveRelative(file, s))),
    );
  }
  return graph;
}

/** Strongly connected components of more than one file, or a file importing itself (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const connect = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        connect(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || graph.get(node)!.includes(node)) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) connect(node);
  return found;
}

/** The edges inside one component, so a failure names the imports to cut. */
function edgesWithin(graph: Map<string, string[]>, component: string[]): string[] {
  return component.flatMap((from) =>
    graph
      .get(from)!
      .filter((to) => component.includes(to))
      .map((to) => `${from} → ${to}`),
  );
}

function layerOf(file: string): number {
  let best = { rank: -1, length: -1 };
  LAYERS.forEach(({ paths }, rank) => {
    for (const p of paths) {
      const matches = p.endsWith('/') ? file.startsWith(p) : file === p;
      if (matches && p.length > best.length) best = { rank, length: p.length };
    }
  });
  return best.rank;
}

describe('core src', () => {
  const graph = coreGraph();

  it('has no import cycle, type-only imports included', () => {
    const found = cycles(graph).map((component) => `${component.join(', ')}\n    ${edgesWithin(graph, component).join('\n    ')}`);
    expect(found).toEqual([]);
  });

  it('places every file in a layer', () => {
    expect([...graph.keys()].filter((file) => layerOf(file) < 0)).toEqual([]);
  });

  it('imports only its own layer or lower ones (base ← context ← metadata ← schema ← engine ← transports ← adapters)', () => {
    const upward = [...graph].flatMap(([from, imports]) =>
      imports.filter((to) => layerOf(to) > layerOf(from)).map((to) => `${from} (${LAYERS[layerOf(from)].layer}) imports ${to} (${LAYERS[layerOf(to)].layer})`),
    );
    expect(upward).toEqual([]);
  });
});

describe('every package', () => {
  const packages = fs.readdirSync(PACKAGES).filter((name) => fs.existsSync(path.join(PACKAGES, name, 'src')));

  it(`has no src file over ${MAX_LINES} lines`, () => {
    const long = packages.flatMap((name) =>
      sourceFiles(path.join(PACKAGES, name, 'src')).map((file) => ({
        file: path.relative(PACKAGES, file),
        lines: fs.readFileSync(file, 'utf8').split('\n').length - 1,
      })),
    );
    const over = long.filter(({ lines }) => lines > MAX_LINES);
    expect(over).toEqual([]);
  });

  it('imports from its src only the packages its package.json depends on', () => {
    const builtins = new Set(builtinModules);
    const undeclared = packages.flatMap((name) => {
      const manifest = JSON.parse(fs.readFileSync(path.join(PACKAGES, name, 'package.json'), 'utf8'));
      const declared = new Set([manifest.name, ...Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies })]);
      return sourceFiles(path.join(PACKAGES, name, 'src')).flatMap((file) =>
        specifiersOf(file)
          .filter((s) => !s.startsWith('.') && !s.startsWith('node:') && !builtins.has(s))
          .map((s) => (s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : s.split('/')[0]))
          .filter((pkg) => !declared.has(pkg))
          .map((pkg) => `${path.relative(PACKAGES, file)} imports ${pkg}, which ${name}/package.json does not list`),
      );
    });
    expect(undeclared).toEqual([]);
  });
});

/**
 * The packages' own arrows (../shared/intent.json): core never needs the client, the client only
 * the protocol, and the gateway — remote servers and `hermes-mcp proxy` — sits above both: it may
 * depend on core, the client, the protocol and the Fastify adapter (it serves HTTP through it),
 * and nothing of theirs may depend on it (the
 * `hermes-mcp proxy` verb loads it by a name its manifest does not list, when installed).
 */
describe('the packages’ layering', () => {
  const dependsOn = (name: string): string[] => {
    const manifest = JSON.parse(fs.readFileSync(path.join(PACKAGES, name, 'package.json'), 'utf8'));
    return Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies, ...manifest.optionalDependencies }).filter((dep) => dep.startsWith('@hermes-mcp/'));
  };

  it('keeps core off the client and the gateway, and the client on the protocol only', () => {
    expect(dependsOn('core')).toEqual(['@hermes-mcp/protocol']);
    expect(dependsOn('client')).toEqual(['@hermes-mcp/protocol']);
  });

  it('lets the gateway depend on core, the client, the protocol and the Fastify adapter, and no package on the gateway', () => {
    expect(dependsOn('gateway').sort()).toEqual(['@hermes-mcp/client', '@hermes-mcp/core', '@hermes-mcp/fastify', '@hermes-mcp/protocol']);
    const packages = fs.readdirSync(PACKAGES).filter((name) => name !== 'gateway' && fs.existsSync(path.join(PACKAGES, name, 'package.json')));
    expect(packages.filter((name) => dependsOn(name).includes('@hermes-mcp/gateway'))).toEqual([]);
  });
});
