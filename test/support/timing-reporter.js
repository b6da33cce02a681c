/**
 * Where a run's time goes: every file's wall time, and every test's (and what failed), written as JSON to
 * `TEST_TIMINGS` (default `.test-timings.json` at the root, ignored by git) and the slowest
 * 20 files printed after Jest's summary. `npm run test:timings` prints a saved report again
 * (`-- --tests 30` for the slowest tests, `-- --files 40` for more files).
 *
 * A file's time is its own worker's wall time from its first line to its last (setup and
 * teardown included); the run's time is from the reporter's start to the last file's end.
 */
const { writeFileSync } = require('node:fs');
const { relative, resolve } = require('node:path');
const { printReport } = require('./timing-report');

class TimingReporter {
  constructor(globalConfig) {
    this.root = globalConfig.rootDir;
    this.started = Date.now();
    this.files = [];
  }

  onTestResult(_test, result) {
    const { start, end } = result.perfStats;
    this.files.push({
      file: relative(this.root, result.testFilePath),
      seconds: round((end - start) / 1000),
      tests: result.numPassingTests + result.numFailingTests + result.numPendingTests,
      failed: result.numFailingTests,
      failures: result.testResults
        .filter((t) => t.status === 'failed')
        .map((t) => ({ name: t.fullName, message: (t.failureMessages[0] ?? '').split('\n').slice(0, 12).join('\n') })),
      slowest: result.testResults
        .map((t) => ({ name: t.fullName, seconds: round((t.duration ?? 0) / 1000) }))
        .sort((a, b) => b.seconds - a.seconds)
        .slice(0, 10),
    });
  }

  onRunComplete(_contexts, results) {
    const report = {
      finished: new Date().toISOString(),
      wallSeconds: round((Date.now() - this.started) / 1000),
      workers: Number(process.env.JEST_WORKERS_USED) || undefined,
      tests: { passed: results.numPassedTests, failed: results.numFailedTests, skipped: results.numPendingTests },
      files: this.files.sort((a, b) => b.seconds - a.seconds),
    };
    const path = resolve(this.root, process.env.TEST_TIMINGS || '.test-timings.json');
    writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
    process.stderr.write(
      `\n${printReport(report, { files: 20, tests: 0 })}(timings of every file and test: ${relative(process.cwd(), path)})\n`,
    );
  }
}

const round = (s) => Math.round(s * 10) / 10;

module.exports = TimingReporter;
