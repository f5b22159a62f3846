import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import OutsideTests from './vitest-outside-tests.mjs';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sitehall-outside-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
afterEach(() => {
  delete process.env.VITEST_OUTSIDE_FILE;
});

/**
 * A test module as Vitest 4 hands it to a reporter: its own errors, its suites' and its tests
 * (`[fullName, state, errors]`), which `allTests(state)` filters as Vitest's does.
 */
const testModule = (file, errors, suites, tests = []) => ({
  project: { name: 'server-sqlite' },
  moduleId: path.join(process.cwd(), file),
  errors: () => errors,
  children: {
    allSuites: () => suites.map(([fullName, e]) => ({ fullName, errors: () => e })),
    allTests: (state) =>
      tests
        .filter(([, s]) => state === undefined || s === state)
        .map(([fullName, s, e]) => ({ fullName, result: () => ({ state: s, errors: e }) })),
  },
});

describe('the reporter of what failed outside the tests', () => {
  it('names a file that did not load, a hook that threw and an error after a test, one line each', () => {
    const file = path.join(dir, 'outside.txt');
    process.env.VITEST_OUTSIDE_FILE = file;
    new OutsideTests().onTestRunEnd(
      [
        testModule('server/test/a.test.ts', [new Error('Cannot find module x\n  at import')], []),
        testModule(
          'server/test/b.test.ts',
          [],
          [
            ['b > setup', [new Error('hook broke')]],
            ['b > fine', []],
          ],
        ),
        testModule('server/test/c.test.ts', [], [['c', []]]),
      ],
      [new Error('late rejection')],
    );
    expect(fs.readFileSync(file, 'utf8').split('\n')).toEqual([
      '[server-sqlite] server/test/a.test.ts: Cannot find module x',
      '[server-sqlite] server/test/b.test.ts > b > setup: hook broke',
      'an error outside any test: late rejection',
    ]);
  });

  it('names each failed test with its first error line, and no test that passed or was skipped', () => {
    const file = path.join(dir, 'failed.txt');
    process.env.VITEST_OUTSIDE_FILE = file;
    new OutsideTests().onTestRunEnd(
      [
        testModule(
          'server/test/d.test.ts',
          [],
          [['d', []]],
          [
            ['d > counts', 'failed', [new Error('expected 1 to be 2\n  diff')]],
            ['d > lists', 'passed', undefined],
            ['d > later', 'skipped', undefined],
          ],
        ),
      ],
      [],
    );
    expect(fs.readFileSync(file, 'utf8').split('\n')).toEqual([
      'failed: [server-sqlite] server/test/d.test.ts > d > counts: expected 1 to be 2',
    ]);
  });

  it('writes an empty file when nothing failed', () => {
    const file = path.join(dir, 'none.txt');
    process.env.VITEST_OUTSIDE_FILE = file;
    new OutsideTests().onTestRunEnd([testModule('server/test/c.test.ts', [], [['c', []]])], []);
    expect(fs.readFileSync(file, 'utf8')).toBe('');
  });
});
