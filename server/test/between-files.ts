import { afterAll, vi } from 'vitest';

/**
 * The server suites share one module graph per worker (vitest.config.ts, `isolate: false`), so
 * what a test file changed in the process must not reach the next file: spies and fake timers are
 * undone when each file ends.
 */
afterAll(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});
