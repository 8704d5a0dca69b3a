/**
 * Where a server spent its CPU: reads a `.cpuprofile` (from `npm run bench -- --profile`) and
 * prints the functions with the most self time, and the same grouped by file, as shares of the
 * busy time (idle and GC shown apart).
 *
 *   node bench/dist/profile-summary.js bench/dist/profiles/<run>/legacy-json.cpuprofile [top]
 *   node bench/dist/profile-summary.js <file.cpuprofile> --callers randomFillSync   # who calls it
 *   node bench/dist/profile-summary.js <file.cpuprofile> --inclusive                # total time by function
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function where(url: string): string {
  const path = url.replace(/^file:\/\//, '');
  const modules = path.lastIndexOf('node_modules/');
  if (modules >= 0) return path.slice(modules + 'node_modules/'.length);
  return path.startsWith('/') ? relative(process.cwd(), path) : path || '(native)';
}

function label(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  return `${functionName || '(anonymous)'}  ${where(url)}${url ? `:${lineNumber + 1}` : ''}`;
}

function main(): void {
  const args = process.argv.slice(2);
  const flag = (name: string) => {
    const at = args.indexOf(name);
    if (at < 0) return undefined;
    const [, value] = args.splice(at, 2);
    return value ?? '';
  };
  const callers = flag('--callers');
  const inclusive = args.includes('--inclusive');
  const [file, topArg] = args.filter((a) => !a.startsWith('--'));
  if (!file) throw new Error('usage: profile-summary <file.cpuprofile> [top] [--callers NAME] [--inclusive]');
  const top = Number(topArg ?? 25);
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const stackOf = (id: number) => {
    const stack: ProfileNode[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) stack.push(byId.get(at)!);
    return stack;
  };
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  let idle = 0;
  let busy = 0;
  for (const [id, us] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === '(idle)') {
      idle += us;
      continue;
    }
    busy += us;
    const name = `${functionName || '(anonymous)'}  ${where(url)}${url ? `:${lineNumber + 1}` : ''}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
    const fileKey = url ? where(url) : functionName;
    byFile.set(fileKey, (byFile.get(fileKey) ?? 0) + us);
  }
  const print = (title: string, entries: Map<string, number>) => {
    process.stdout.write(`\n${title}\n`);
    for (const [name, us] of [...entries].sort((a, b) => b[1] - a[1]).slice(0, top)) {
      process.stdout.write(`${((100 * us) / busy).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(6)} ms  ${name}\n`);
    }
  };
  process.stdout.write(`${file}: busy ${(busy / 1000).toFixed(0)} ms, idle ${(idle / 1000).toFixed(0)} ms\n`);
  if (callers !== undefined) {
    // The call paths (innermost first, 8 frames) that lead to samples in functions named `callers`.
    const paths = new Map<string, number>();
    for (const [id, us] of self) {
      const stack = stackOf(id);
      const at = stack.findIndex((n) => n.callFrame.functionName === callers);
      if (at < 0) continue;
      const path = stack
        .slice(at, at + 8)
        .map(label)
        .join('\n      ← ');
      paths.set(path, (paths.get(path) ?? 0) + us);
    }
    print(`call paths into ${callers}`, paths);
    return;
  }
  if (inclusive) {
    // Time under each function (each function counted once per sample, however deep it recurses).
    const total = new Map<string, number>();
    for (const [id, us] of self) {
      if (byId.get(id)!.callFrame.functionName === '(idle)') continue;
      for (const name of new Set(stackOf(id).map(label))) total.set(name, (total.get(name) ?? 0) + us);
    }
    print('inclusive time by function (share of busy time)', total);
    return;
  }
  print('self time by function (share of busy time)', byFunction);
  print('self time by file', byFile);
}

main();
