// What scripts/test.mjs reads from Playwright's JSON report beyond its totals.
/** Playwright's tests that needed a retry: title, and whether their first two tries failed. */
export function flakyTests(report) {
  const found = [];
  const walk = (suite, titles) => {
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        const results = test.results ?? [];
        const failedTry = (r) => r.status !== 'passed' && r.status !== 'skipped';
        const passedLast = results.length > 1 && results.at(-1).status === 'passed';
        if (!passedLast) continue;
        found.push({
          title: [...titles, spec.title].filter(Boolean).join(' › '),
          failedFirstTwo: results.length >= 3 && failedTry(results[0]) && failedTry(results[1]),
        });
      }
    }
    for (const child of suite.suites ?? []) walk(child, [...titles, child.title]);
  };
  for (const suite of report.suites ?? []) walk(suite, [suite.title]);
  return found;
}
