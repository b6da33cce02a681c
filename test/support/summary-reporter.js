/** Ends every run with the plain closing line CI reads: `N passed, N failed, N skipped` (on stderr, after jest's own summary). */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    process.stderr.write(`\n${results.numPassedTests} passed, ${results.numFailedTests} failed, ${results.numPendingTests} skipped\n`);
  }
}
module.exports = SummaryReporter;
