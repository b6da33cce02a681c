#!/usr/bin/env node
/**
 * Prints a saved timing report (test/support/timing-reporter.js writes it): the slowest files,
 * and with `--tests N` the slowest tests. Usage: `npm run test:timings [-- --files N --tests N [path]]`.
 */
const { readFileSync } = require('node:fs');

function printReport(report, { files = 20, tests = 0 } = {}) {
  const lines = [];
  const total = report.files.reduce((s, f) => s + f.seconds, 0);
  lines.push(
    `timing: ${report.tests.passed} passed, ${report.tests.failed} failed, ${report.tests.skipped} skipped in ${report.wallSeconds} s wall` +
      ` (${report.files.length} files, ${Math.round(total)} s of file time)`,
  );
  lines.push(`slowest ${Math.min(files, report.files.length)} files (seconds, tests):`);
  for (const f of report.files.slice(0, files))
    lines.push(`  ${f.seconds.toFixed(1).padStart(7)}  ${String(f.tests).padStart(4)}  ${f.file}`);
  if (tests > 0) {
    const all = report.files.flatMap((f) => f.slowest.map((t) => ({ ...t, file: f.file }))).sort((a, b) => b.seconds - a.seconds);
    lines.push(`slowest ${Math.min(tests, all.length)} tests (seconds):`);
    for (const t of all.slice(0, tests)) lines.push(`  ${t.seconds.toFixed(1).padStart(7)}  ${t.file} › ${t.name}`);
  }
  return `${lines.join('\n')}\n`;
}

module.exports = { printReport };

if (require.main === module) {
  const args = process.argv.slice(2);
  const option = (name, fallback) => {
    const i = args.indexOf(name);
    if (i < 0) return fallback;
    const [value] = args.splice(i, 2).slice(1);
    return Number(value);
  };
  const files = option('--files', 20);
  const tests = option('--tests', 0);
  const path = args[0] ?? process.env.TEST_TIMINGS ?? '.test-timings.json';
  process.stdout.write(printReport(JSON.parse(readFileSync(path, 'utf8')), { files, tests }));
}
