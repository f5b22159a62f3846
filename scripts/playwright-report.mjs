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

/**
 * Every failed try of every test: its title, project, try (0 the first) and when it ran (ms since
 * the epoch), so its server's log of that time can be read (scripts/e2e-server-log.mjs).
 */
export function failedTries(report) {
  const found = [];
  const walk = (suite, titles) => {
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        for (const result of test.results ?? []) {
          if (result.status === 'passed' || result.status === 'skipped') continue;
          const from = Date.parse(result.startTime);
          if (Number.isNaN(from)) continue;
          found.push({
            title: [...titles, spec.title].filter(Boolean).join(' › '),
            project: test.projectName,
            retry: result.retry ?? 0,
            from,
            to: from + (result.duration ?? 0),
          });
        }
      }
    }
    for (const child of suite.suites ?? []) walk(child, [...titles, child.title]);
  };
  for (const suite of report.suites ?? []) walk(suite, [suite.title]);
  return found;
}

/** Each project's server port, from the metadata playwright.config.ts gives it. */
export function projectPorts(report) {
  const ports = new Map();
  for (const project of report.config?.projects ?? []) {
    const port = project.metadata?.port;
    if (project.name && typeof port === 'number') ports.set(project.name, port);
  }
  return ports;
}
