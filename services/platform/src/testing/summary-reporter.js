// Jest reporter that ends the run with one plain summary line ("N passed, N failed, N skipped"), so
// tools reading the last line see the counts, skipped container suites included.
"use strict";

class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    process.stdout.write(`\njest: ${results.numPassedTests} passed, ${results.numFailedTests} failed, ${skipped} skipped\n`);
  }
}

module.exports = SummaryReporter;
