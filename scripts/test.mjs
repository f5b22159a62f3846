#!/usr/bin/env node
// npm test: builds, runs the unit and server suites (Vitest) and the browser tests (Playwright in
// Debian's Chromium), then prints one closing line "Tests: N passed, N failed".
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describeServerLog, serverLogPath } from './e2e-server-log.mjs';
import { failedTries, flakyTests, projectPorts } from './playwright-report.mjs';

const ci = process.env.CI === 'true' || process.env.CI === '1';
const out = fs.mkdtempSync(path.join(os.tmpdir(), 'sitehall-test-'));
const run = (cmd, args, env = {}) =>
  spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } }).status ?? 1;

let passed = 0;
let failed = 0;
let skipped = 0;
const problems = [];
const flaky = [];

function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

// 1. Build what the browser tests serve (and check the production build compiles), unless the
// last build was of these very sources (scripts/build-if-changed.mjs, as npm start does).
if (run(process.execPath, [path.join(import.meta.dirname, 'build-if-changed.mjs')]) !== 0) {
  console.error('\nThe build failed.');
  console.log('Tests: 0 passed, 1 failed');
  process.exit(1);
}

// 2. Vitest: server (SQLite, and PostgreSQL when TEST_DATABASE_URL is set) and web unit tests.
const vitestJson = path.join(out, 'vitest.json');
// Each failed test, and a file that did not load, a hook that threw, an error after a test:
// scripts/vitest-outside-tests.mjs.
const vitestOutside = path.join(out, 'vitest-outside.txt');
const vitestStatus = run(
  'npx',
  [
    'vitest',
    'run',
    '--reporter=default',
    '--reporter=json',
    `--outputFile.json=${vitestJson}`,
    '--reporter=./scripts/vitest-outside-tests.mjs',
  ],
  { VITEST_OUTSIDE_FILE: vitestOutside },
);
const v = readJson(vitestJson);
if (v) {
  passed += v.numPassedTests;
  failed += v.numFailedTests;
  skipped += v.numPendingTests + (v.numTodoTests ?? 0);
  if (vitestStatus !== 0 && v.numFailedTests === 0) {
    failed += 1;
    problems.push('vitest exited with an error outside the tests (a suite failed to load?)');
  }
  // What failed, named beside the closing line where a CI log's tail shows it.
  const outside = fs.existsSync(vitestOutside) ? fs.readFileSync(vitestOutside, 'utf8').trim() : '';
  for (const line of outside ? outside.split('\n') : []) problems.push(line);
} else {
  failed += 1;
  problems.push('vitest produced no report');
}

// 3. Playwright in Debian's Chromium.
const chromium = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
  (p) => p && fs.existsSync(p),
);
if (!chromium) {
  const banner = '!'.repeat(72);
  console.error(
    `\n${banner}\n  Chromium is missing: the browser tests did NOT run.\n  Install Debian's Chromium:  sudo apt-get install -y chromium\n  (or set CHROMIUM_PATH). Never 'playwright install': downloads fail here.\n${banner}\n`,
  );
  if (ci) {
    failed += 1;
    problems.push('Chromium missing with CI=true');
  } else {
    skipped += 1;
  }
} else {
  const pwJson = path.join(out, 'playwright.json');
  const pwStatus = run('npx', ['playwright', 'test'], { PW_JSON_OUTPUT: pwJson, CHROMIUM_PATH: chromium });
  const p = readJson(pwJson);
  if (p?.stats) {
    // A test that passed on a retry is flaky: named here and counted as passed, unless its first two
    // tries both failed (it needed its retry twice in a row), which counts as a failure.
    const retried = flakyTests(p);
    const twice = retried.filter((t) => t.failedFirstTwo);
    for (const t of retried) flaky.push(`${t.title}${t.failedFirstTwo ? ' (failed twice in a row)' : ''}`);
    passed += p.stats.expected + (p.stats.flaky ?? 0) - twice.length;
    failed += p.stats.unexpected + twice.length;
    skipped += p.stats.skipped;
    if (twice.length) problems.push(`${twice.length} browser test(s) passed only on a third try`);
    // For each failed try, what its server did meanwhile (scripts/e2e-server-log.mjs).
    const ports = projectPorts(p);
    for (const t of failedTries(p)) {
      const port = ports.get(t.project);
      console.log(`\nServer log during the failed try ${t.retry + 1} of ${t.title} (${t.project}):`);
      const lines = port
        ? describeServerLog(serverLogPath(process.cwd(), port), t.from, t.to)
        : ['  (its project names no server port)'];
      for (const line of lines) console.log(line);
    }
    if (pwStatus !== 0 && p.stats.unexpected === 0) {
      failed += 1;
      problems.push('playwright exited with an error outside the tests');
    }
  } else {
    failed += 1;
    problems.push('playwright produced no report');
  }
}

fs.rmSync(out, { recursive: true, force: true });
for (const p of problems) console.error(`problem: ${p}`);
// Said on the line before the closing one, which keeps the form CI reads ("N passed, N failed").
console.log(`\nFlaky (passed on a retry): ${flaky.length}${flaky.length ? ` — ${flaky.join('; ')}` : ''}`);
console.log(`\nTests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 ? 1 : 0);
