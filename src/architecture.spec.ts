import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';

/**
 * The shape of the import graph, checked from the sources: the ground floors import nothing
 * above them, and no file or folder depends on itself through others.
 */
const SRC = __dirname;

/** What each ground floor may import besides itself. */
const FLOORS: Record<string, string[]> = {
  contract: [],
  config: ['contract'],
  common: ['contract', 'config'],
};

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith('.ts') && !name.endsWith('.spec.ts') ? [path] : [];
  });
}

/**
 * Relative imports of a file (static, type-only and dynamic), as files of `known` (the SDK imports
 * as ES modules do: `./client.js` names client.ts).
 */
function importsOf(file: string, known: Map<string, unknown> = graph): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:from\s+|import\s*\(\s*|^import\s+)'(\.[^']+)'/gm)].map((m) => m[1]);
  return specifiers.map((specifier) => {
    const target = normalize(join(dirname(file), specifier)).replace(/\.js$/, '');
    for (const candidate of [`${target}.ts`, join(target, 'index.ts')]) if (known.has(candidate)) return candidate;
    return target;
  });
}

/** The folder a file lives in, directly under src/ (`.` for the composition files beside app.ts). */
const folderOf = (file: string) => {
  const parts = relative(SRC, file).split('/');
  return parts.length > 1 ? parts[0] : '.';
};

const graph = new Map<string, string[]>(sources(SRC).map((file) => [file, []]));
for (const file of graph.keys()) graph.set(file, importsOf(file));

function cycles(edges: Map<string, Iterable<string>>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (node: string) => {
    state.set(node, 'open');
    path.push(node);
    for (const next of edges.get(node) ?? []) {
      if (state.get(next) === 'open') found.push([...path.slice(path.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(node, 'done');
  };
  for (const node of edges.keys()) if (!state.has(node)) visit(node);
  return found;
}

const name = (file: string) => relative(SRC, file);

describe('the import graph of src/', () => {
  it('reads every source file and resolves every relative import to one', () => {
    expect(graph.size).toBeGreaterThan(100);
    const unresolved = [...graph].flatMap(([file, targets]) =>
      targets.filter((t) => !graph.has(t)).map((t) => `${name(file)} → ${name(t)}`),
    );
    expect(unresolved).toEqual([]);
  });

  it.each(Object.entries(FLOORS))('keeps %s/ on the ground: it imports only %j besides itself', (floor, allowed) => {
    const upward = [...graph]
      .filter(([file]) => folderOf(file) === floor)
      .flatMap(([file, targets]) =>
        targets.filter((t) => folderOf(t) !== floor && !allowed.includes(folderOf(t))).map((t) => `${name(file)} → ${name(t)}`),
      );
    expect(upward).toEqual([]);
  });

  it('has no cycle between files', () => {
    expect(cycles(graph).map((cycle) => cycle.map(name).join(' → '))).toEqual([]);
  });

  it('has no cycle between folders', () => {
    const folders = new Map<string, Set<string>>();
    for (const [file, targets] of graph) {
      const from = folders.get(folderOf(file)) ?? new Set<string>();
      for (const target of targets) if (folderOf(target) !== folderOf(file)) from.add(folderOf(target));
      folders.set(folderOf(file), from);
    }
    expect(cycles(folders).map((cycle) => cycle.join(' → '))).toEqual([]);
  });
});

/** The SDK keeps the rule of its own style: a plugin takes the core, never the other way round. */
describe('the import graph of sdk/src/', () => {
  const SDK = join(SRC, '..', 'sdk', 'src');
  const sdk = new Map<string, string[]>(sources(SDK).map((file) => [file, []]));
  for (const file of sdk.keys()) sdk.set(file, importsOf(file, sdk));
  const sdkName = (file: string) => relative(SDK, file);

  it('reads every source file and resolves every relative import to one', () => {
    expect(sdk.size).toBeGreaterThan(10);
    const unresolved = [...sdk].flatMap(([file, targets]) =>
      targets.filter((t) => !sdk.has(t)).map((t) => `${sdkName(file)} → ${sdkName(t)}`),
    );
    expect(unresolved).toEqual([]);
  });

  it('has no cycle between files', () => {
    expect(cycles(sdk).map((cycle) => cycle.map(sdkName).join(' → '))).toEqual([]);
  });
});
