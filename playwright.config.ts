import { defineConfig } from '@playwright/test';
import { chromiumPath, E2E_ADMIN_PASSWORD, E2E_PORT } from './e2e/env';

/** Browser tests drive Debian's Chromium against the built app on a fresh data folder. */
export default defineConfig({
  testDir: './e2e',
  testMatch: '**/*.e2e.ts',
  // Generous on purpose: a loaded 2-core runner renders antd pages slowly, and every wait is for a
  // condition, so these bounds only decide how long a real failure takes to be reported.
  timeout: 180_000,
  expect: { timeout: 30_000 },
  fullyParallel: false,
  workers: 1,
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
    trace: 'retain-on-failure',
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
  webServer: {
    command: 'node e2e/start-server.mjs',
    url: `http://127.0.0.1:${E2E_PORT}/healthz`,
    reuseExistingServer: false,
    timeout: 60_000,
    env: {
      E2E_PORT: String(E2E_PORT),
      ADMIN_PASSWORD: E2E_ADMIN_PASSWORD,
      ...(process.env.E2E_WEB_DIST ? { E2E_WEB_DIST: process.env.E2E_WEB_DIST } : {}),
      ...(process.env.E2E_SERVER_DIST ? { E2E_SERVER_DIST: process.env.E2E_SERVER_DIST } : {}),
    },
  },
});
