/**
 * The `sitehall` command (packages/cli) as the tests run it: from its sources through tsx, in a
 * process of its own, with a home and a working folder of its own (the project link lives in the
 * working folder), no TTY (plain progress lines).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect } from 'vitest';
import { tempDir } from '../helpers.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** The CLI's process, its output piped; ended after two minutes whatever it is doing. */
export function spawnSitehall(args: string[], env: Record<string, string>, cwd = tempDir('sitehall-cwd-')) {
  return spawn(
    process.execPath,
    // tsx by its file (`--import tsx` resolves from the working folder, a temporary one here).
    [
      '--import',
      pathToFileURL(path.join(repoRoot, 'node_modules/tsx/dist/loader.mjs')).href,
      path.join(repoRoot, 'packages/cli/src/bin.ts'),
      ...args,
    ],
    {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: tempDir('sitehall-home-'), ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 120_000,
    },
  );
}

/** Runs the CLI to its end: its exit code and output. */
export function sitehall(
  args: string[],
  env: Record<string, string>,
  cwd?: string,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawnSitehall(args, env, cwd);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

/** The CLI running on (a watch): its output as it comes, and a way to wait for a line. */
export function watching(args: string[], env: Record<string, string>) {
  const child = spawnSitehall(args, env);
  let out = '';
  let seen = 0;
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number>((resolve) => child.on('exit', (code) => resolve(code ?? 1)));
  return {
    child,
    exited,
    output: () => out,
    /** The next match of `re` after the last one waited for. */
    async next(re: RegExp): Promise<RegExpExecArray> {
      let m: RegExpExecArray | null = null;
      await expect
        .poll(
          () => {
            m = re.exec(out.slice(seen));
            return m !== null;
          },
          { timeout: 60_000, message: `waiting for ${re} in:\n${out}` },
        )
        .toBe(true);
      const found = m! as RegExpExecArray;
      seen += found.index + found[0].length;
      return found;
    },
  };
}
