import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { transform, version as swcVersion } from '@swc/core';

const ROOT = join(__dirname, '../..');
/** Under node_modules, so the built files resolve the project's packages as the sources do. */
const CACHE = join(ROOT, 'node_modules/.cache/conversation-read-api/process-build');

/**
 * The app's sources compiled once for the processes tests start (the CLI, the worker, the
 * service): `node <dir>/src/cli/main.js` starts in about a second, where `ts-node` compiled the
 * whole app again in every process (about 5 s each, some 60 times a run).
 *
 * swc compiles each file on its own with the project's `.swcrc` (the same transform Jest uses):
 * what `ts-node --transpile-only` did, without the type check (`npm run typecheck` does that).
 * The result is kept under a hash of every source and the compiler's settings, so a second run,
 * or one file run alone, reuses it; a changed source makes a new one. The production build
 * (`nest build`, tsc) is still what `npm start` runs, and start-signals and the quick start run it.
 */
export async function buildForProcesses(): Promise<string> {
  const files = (await sourcesUnder(join(ROOT, 'src'))).concat(join(ROOT, 'ormconfig.ts')).sort();
  const swcrc = await readFile(join(ROOT, '.swcrc'), 'utf8');
  const hash = createHash('sha256').update(swcVersion).update(swcrc);
  const sources = await Promise.all(files.map((f) => readFile(f, 'utf8')));
  files.forEach((f, i) => hash.update(relative(ROOT, f)).update('\0').update(sources[i]).update('\0'));
  const dir = join(CACHE, hash.digest('hex').slice(0, 16));
  if (existsSync(join(dir, 'complete'))) return dir;

  const staging = `${dir}.${process.pid}`;
  await Promise.all(
    files.map(async (file, i) => {
      const { code } = await transform(sources[i], { filename: file, swcrc: true, sourceMaps: false });
      const out = join(staging, relative(ROOT, file)).replace(/\.ts$/, '.js');
      await mkdir(dirname(out), { recursive: true });
      await writeFile(out, code);
    }),
  );
  await writeFile(join(staging, 'complete'), '');
  await rm(dir, { recursive: true, force: true });
  await rename(staging, dir).catch(async (e: NodeJS.ErrnoException) => {
    // Another run built the same sources meanwhile: theirs serves.
    if (!existsSync(join(dir, 'complete'))) throw e;
    await rm(staging, { recursive: true, force: true });
  });
  await pruneOthers(dir);
  return dir;
}

/** The compiled file of `source` (`src/cli/main.ts`) in the build global setup made (`TEST_PROCESS_BUILD`). */
export function builtEntry(source: string): string {
  const dir = process.env.TEST_PROCESS_BUILD;
  if (!dir) throw new Error('no process build: run the tests through jest (its global setup builds the app once)');
  return join(dir, source.replace(/\.ts$/, '.js'));
}

async function sourcesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((e) => {
      const path = join(dir, e.name);
      if (e.isDirectory()) return sourcesUnder(path);
      return Promise.resolve(e.name.endsWith('.ts') && !e.name.endsWith('.spec.ts') && !e.name.endsWith('.d.ts') ? [path] : []);
    }),
  );
  return nested.flat();
}

/** Keeps the cache to the newest few builds. */
async function pruneOthers(keep: string): Promise<void> {
  const names = (await readdir(CACHE).catch(() => [] as string[])).filter((n) => !n.includes('.') && join(CACHE, n) !== keep);
  if (names.length < 4) return;
  await Promise.all(names.map((n) => rm(join(CACHE, n), { recursive: true, force: true })));
}
