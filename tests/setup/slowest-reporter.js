/* global process, module */
/**
 * Jest reporter: after the run, the fifteen slowest test files with their wall time, and the sum of
 * all files' times (with jest's workers the run's wall time is about that sum over the worker
 * count). CI prints it so a slow suite is seen where it costs (.ci/run "where the time went").
 */
class SlowestReporter {
  onRunComplete(_contexts, results) {
    const files = results.testResults
      .map((r) => ({ file: r.testFilePath.replace(`${process.cwd()}/`, ''), s: (r.perfStats.end - r.perfStats.start) / 1000 }))
      .sort((a, b) => b.s - a.s);
    const total = files.reduce((sum, f) => sum + f.s, 0);
    const lines = files.slice(0, 15).map((f) => `  ${f.s.toFixed(1).padStart(7)} s  ${f.file}`);
    process.stderr.write(`\nSlowest test files (${files.length} files, ${total.toFixed(0)} s summed):\n${lines.join('\n')}\n`);
  }
}
module.exports = SlowestReporter;
