// A Vitest reporter for npm test (scripts/test.mjs): writes each failed test and what failed
// outside the tests (a file that did not load, a hook that threw, an error after a test ended) to
// the file named by VITEST_OUTSIDE_FILE, one line each, so the closing lines of a CI log name them
// (a CI record may keep only the log's tail). Vitest's JSON report counts a suite that failed
// outside its tests as skipped and gives no message.
import fs from 'node:fs';
import path from 'node:path';

const firstLine = (error) =>
  String(error?.message ?? error ?? '')
    .split('\n')[0]
    .slice(0, 300);

export default class OutsideTests {
  onTestRunEnd(testModules, unhandledErrors) {
    const file = process.env.VITEST_OUTSIDE_FILE;
    if (!file) return;
    const lines = [];
    for (const mod of testModules) {
      const where = `[${mod.project.name}] ${path.relative(process.cwd(), mod.moduleId)}`;
      for (const error of mod.errors()) lines.push(`${where}: ${firstLine(error)}`);
      for (const test of mod.children.allTests('failed'))
        lines.push(`failed: ${where} > ${test.fullName}: ${firstLine(test.result().errors?.[0])}`);
      for (const suite of mod.children.allSuites())
        for (const error of suite.errors()) lines.push(`${where} > ${suite.fullName}: ${firstLine(error)}`);
    }
    for (const error of unhandledErrors) lines.push(`an error outside any test: ${firstLine(error)}`);
    fs.writeFileSync(file, lines.join('\n'));
  }
}
