import { afterAll, vi } from 'vitest';
import { removeTempDirs } from './support/temp-dirs.js';

/**
 * The server suites share one module graph per worker (vitest.config.ts, `isolate: false`), so
 * what a test file changed in the process must not reach the next file: spies and fake timers are
 * undone when each file ends, and the temporary folders it made (support/temp-dirs.ts) removed.
 */
afterAll(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  // Registered first, so run after the file's own afterAll hooks (its apps are closed by then).
  removeTempDirs();
});
