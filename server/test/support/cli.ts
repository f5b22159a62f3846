/**
 * The operator commands of server/src/cli, run from their sources in a process of their own (tsx;
 * @sitehall/contracts resolves to its sources through the "source" export condition), against the
 * data folder and database of a test app's configuration.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '../../src/config.js';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `script` is a file of server/src/cli ('backup.ts'); `env` adds to or overrides the rest. */
export function runCli(
  script: string,
  args: string[],
  config: Pick<Config, 'dataDir' | 'database'>,
  env: Record<string, string> = {},
): Promise<CliResult> {
  const full: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: config.dataDir, LOG_LEVEL: 'silent' };
  delete full.DATABASE_URL;
  if (config.database.kind === 'postgres') {
    // %20, not URLSearchParams' '+': libpq (pg_dump, pg_restore) reads '+' literally.
    const { url, schema } = config.database;
    const options = schema ? `options=${encodeURIComponent(`-c search_path=${schema}`)}` : '';
    full.DATABASE_URL = options ? `${url}${url.includes('?') ? '&' : '?'}${options}` : url;
  }
  Object.assign(full, env);
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--conditions=source', '--import', 'tsx', path.join(repoRoot, 'server/src/cli', script), ...args],
      { cwd: repoRoot, env: full, stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}
