import { defineConfig } from '@playwright/test';
import { chromiumPath, E2E_ADMIN_PASSWORD, E2E_PORT, E2E_RENDER_PORT, E2E_SECOND_PORT } from './e2e/env';

/**
 * The files whose subject is the render worker's work (pictures, the visitor's findings): they run
 * against a server of their own with the worker on. Every other file runs against one with it off,
 * so no render competes with the browser under test for the runner's two cores
 * (docs/architecture.md "Run time").
 */
const RENDER_FILES = ['**/render.e2e.ts', '**/content-check.e2e.ts'];
/**
 * Files that run against a second server of their own (render worker off), beside the first's
 * files: two browsers at once keep both cores busy where one left a fifth of them idle
 * (docs/architecture.md "Run time"). Each server's files still run one at a time, in their order;
 * a file that names the first server's port (E2E_PORT) stays with it. About half the time each.
 */
const SECOND_SERVER_FILES = [
  '**/isolation.e2e.ts',
  '**/compat.e2e.ts',
  '**/projects.e2e.ts',
  '**/cookie-jar.e2e.ts',
  '**/domains.e2e.ts',
  '**/storage.e2e.ts',
  '**/review-detail.e2e.ts',
  '**/api-tokens.e2e.ts',
  '**/showcase.e2e.ts',
  '**/states.e2e.ts',
  '**/file-types.e2e.ts',
  '**/csp.e2e.ts',
];

/** Browser tests drive Debian's Chromium against the built app on a fresh data folder. */
export default defineConfig({
  testDir: './e2e',
  testMatch: '**/*.e2e.ts',
  // Generous on purpose: a loaded 2-core runner renders antd pages slowly, and every wait is for a
  // condition, so these bounds only decide how long a real failure takes to be reported.
  timeout: 180_000,
  expect: { timeout: 30_000 },
  fullyParallel: false,
  // One worker a server (each project's `workers`), two at once.
  workers: 2,
  // Two retries in CI: a test that passes on one retry is reported as flaky by scripts/test.mjs;
  // one that needed both (its first two tries failed) fails the run.
  retries: process.env.CI ? 2 : 0,
  reporter: process.env.PW_JSON_OUTPUT
    ? [['list'], ['json', { outputFile: process.env.PW_JSON_OUTPUT }]]
    : 'list',
  use: {
    baseURL: `http://127.0.0.1:${E2E_PORT}`,
    locale: 'zh-CN',
    timezoneId: 'Asia/Shanghai',
    // An action or navigation stuck past a minute fails with its own locator and step, instead of
    // the whole test's bound reporting only where the page was.
    actionTimeout: 60_000,
    navigationTimeout: 60_000,
    // Recording a trace costs the browser under test about a third of its time on two cores
    // (docs/architecture.md "Run time"): in CI a trace is kept of a failed test's retry, which a
    // test that fails for real also fails; elsewhere (no retries) of any failed test.
    trace: process.env.CI ? 'on-first-retry' : 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: chromiumPath(),
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        '--disable-quic',
      ],
    },
  },
  // In this order: the render files take the second worker first, then the second server's
  // files follow them there while the first server's run beside (alone at the end, the render
  // files left one core idle for a minute).
  projects: [
    {
      name: 'app',
      testIgnore: [...RENDER_FILES, ...SECOND_SERVER_FILES],
      workers: 1,
      metadata: { port: E2E_PORT },
    },
    {
      name: 'render',
      testMatch: RENDER_FILES,
      workers: 1,
      metadata: { port: E2E_RENDER_PORT },
      use: { baseURL: `http://127.0.0.1:${E2E_RENDER_PORT}` },
    },
    {
      name: 'app-2',
      testMatch: SECOND_SERVER_FILES,
      workers: 1,
      metadata: { port: E2E_SECOND_PORT },
      use: { baseURL: `http://127.0.0.1:${E2E_SECOND_PORT}` },
    },
  ],
  webServer: [server(E2E_PORT, 'off'), server(E2E_SECOND_PORT, 'off'), server(E2E_RENDER_PORT, 'on')],
});

/**
 * The built app on `port` (its sites port the next), on a fresh data folder, its render worker on or
 * off. Its request log (JSON lines, debug level) goes to .tmp/e2e-server-<port>.log, which
 * scripts/test.mjs reads for each failed try (scripts/e2e-server-log.mjs); its errors on start
 * still reach the run's output.
 */
function server(port: number, render: 'on' | 'off') {
  return {
    command: `mkdir -p .tmp && exec node e2e/start-server.mjs > .tmp/e2e-server-${port}.log`,
    url: `http://127.0.0.1:${port}/healthz`,
    reuseExistingServer: false,
    timeout: 60_000,
    env: {
      E2E_PORT: String(port),
      ADMIN_PASSWORD: E2E_ADMIN_PASSWORD,
      RENDER_WORKER: render,
      LOG_LEVEL: 'debug',
      LOG_FORMAT: 'json',
      ...(process.env.E2E_WEB_DIST ? { E2E_WEB_DIST: process.env.E2E_WEB_DIST } : {}),
      ...(process.env.E2E_SERVER_DIST ? { E2E_SERVER_DIST: process.env.E2E_SERVER_DIST } : {}),
    },
  };
}
