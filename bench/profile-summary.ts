import { readFileSync } from 'node:fs';

/**
 * `node dist/bench/profile-summary.js <file.cpuprofile> [N]`: where a V8 CPU profile's time
 * went, as self time per function and per package (node_modules/<name>, node internals, ours).
 */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function owner(url: string): string {
  if (!url) return '(native / V8)';
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (m) return m[1];
  if (url.startsWith('node:')) return 'node core';
  if (url.includes('/dist/src/')) return 'ours: ' + url.replace(/.*\/dist\/src\//, 'src/');
  return url;
}

function main(): void {
  const [file, top = '25'] = process.argv.slice(2);
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
  const fn = new Map<string, number>();
  const pkg = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const { callFrame } = byId.get(id)!;
    const key = `${callFrame.functionName || '(anonymous)'} ${owner(callFrame.url)}:${callFrame.lineNumber + 1}`;
    fn.set(key, (fn.get(key) ?? 0) + us);
    const p = owner(callFrame.url).replace(/^ours: .*/, 'ours');
    pkg.set(p, (pkg.get(p) ?? 0) + us);
  }
  const show = (title: string, map: Map<string, number>) => {
    process.stdout.write(`\n${title}\n`);
    for (const [k, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, Number(top))) {
      process.stdout.write(`${((100 * us) / total).toFixed(1).padStart(5)}%  ${k}\n`);
    }
  };
  process.stdout.write(`${file}: ${(total / 1e6).toFixed(1)} s sampled\n`);
  show('self time by package', pkg);
  show('self time by function', fn);
}

main();
