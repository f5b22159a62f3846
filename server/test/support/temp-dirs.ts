/**
 * Temporary folders of a test file (a site, a working folder, a home, a cache): made in the
 * system's temp folder and removed when the file ends (test/between-files.ts), so a run leaves
 * none behind. A folder that can't be removed (a child process still writing) is left to the
 * system.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const made = new Set<string>();

export function tempDir(prefix = 'sitehall-test-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.add(dir);
  return dir;
}

/** Removes the folders tempDir made since the last call. */
export function removeTempDirs(): void {
  for (const dir of made) {
    try {
      fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      // Still in use: the system's temp folder is cleared in time.
    }
  }
  made.clear();
}
