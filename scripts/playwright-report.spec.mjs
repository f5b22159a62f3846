import { describe, expect, it } from 'vitest';
import { flakyTests } from './playwright-report.mjs';

const spec = (title, statuses) => ({ title, tests: [{ results: statuses.map((status) => ({ status })) }] });

describe('flakyTests', () => {
  it('names tests that passed on a retry, and marks those whose first two tries failed', () => {
    const report = {
      suites: [
        {
          title: 'a.e2e.ts',
          specs: [spec('top', ['passed'])],
          suites: [
            {
              title: '分组',
              specs: [
                spec('once', ['failed', 'passed']),
                spec('twice', ['failed', 'timedOut', 'passed']),
                spec('never', ['failed', 'failed', 'failed']),
                spec('skipped', ['skipped']),
              ],
            },
          ],
        },
      ],
    };
    expect(flakyTests(report)).toEqual([
      { title: 'a.e2e.ts › 分组 › once', failedFirstTwo: false },
      { title: 'a.e2e.ts › 分组 › twice', failedFirstTwo: true },
    ]);
  });

  it('finds nothing in a report without retries', () => {
    expect(flakyTests({ suites: [{ title: 'b.e2e.ts', specs: [spec('ok', ['passed'])] }] })).toEqual([]);
    expect(flakyTests({})).toEqual([]);
  });
});
