import { describe, expect, it } from 'vitest';
import { failedTries, flakyTests, projectPorts } from './playwright-report.mjs';

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

describe('failedTries and projectPorts', () => {
  it('gives every failed try with its project and time, and each project’s port', () => {
    const start = '2026-12-07T05:00:00.000Z';
    const report = {
      config: {
        projects: [
          { name: 'app', metadata: { port: 3210 } },
          { name: 'bare', metadata: {} },
        ],
      },
      suites: [
        {
          title: 'admin.e2e.ts',
          specs: [
            {
              title: 'reviews',
              tests: [
                {
                  projectName: 'app',
                  results: [
                    { status: 'timedOut', retry: 0, startTime: start, duration: 1500 },
                    { status: 'passed', retry: 1, startTime: start, duration: 900 },
                  ],
                },
              ],
            },
          ],
        },
      ],
    };
    const from = Date.parse(start);
    expect(failedTries(report)).toEqual([
      { title: 'admin.e2e.ts › reviews', project: 'app', retry: 0, from, to: from + 1500 },
    ]);
    expect([...projectPorts(report)]).toEqual([['app', 3210]]);
    expect(failedTries({})).toEqual([]);
  });
});
