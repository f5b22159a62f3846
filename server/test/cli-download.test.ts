/**
 * The CLI from the server (docs/notifications.md "The CLI from the server"): GET /cli/sitehall-cli.tgz is
 * the package the build packed, and `npm install -g` of that address installs a working `sitehall`
 * on a machine that has only Node and npm (here: a temporary prefix, nothing from a registry).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, listenPort, type TestApp, tempDir } from './helpers.js';

const run = promisify(execFile);
const repoRoot = path.resolve(import.meta.dirname, '../..');

describe('the CLI offered by the server', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp();
    base = `http://127.0.0.1:${await listenPort(t)}`;
  });
  afterAll(() => t.close());

  it('answers the packed package at a stable address, to anyone, revalidated by its ETag', async () => {
    const res = await fetch(`${base}/cli/sitehall-cli.tgz`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/gzip');
    const body = Buffer.from(await res.arrayBuffer());
    expect(body.subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    expect(body.equals(fs.readFileSync(path.join(repoRoot, 'packages/cli/pack/sitehall-cli.tgz')))).toBe(
      true,
    );
    const again = await fetch(`${base}/cli/sitehall-cli.tgz`, {
      headers: { 'if-none-match': res.headers.get('etag')! },
    });
    expect(again.status).toBe(304);
  });

  it('npm install -g from the address gives a sitehall that runs', { timeout: 120_000 }, async () => {
    const prefix = tempDir('sitehall-cli-install-');
    const cache = tempDir('sitehall-npm-cache-');
    try {
      await run(
        'npm',
        [
          'install',
          '-g',
          '--prefix',
          prefix,
          '--cache',
          cache,
          '--no-audit',
          '--no-fund',
          `${base}/cli/sitehall-cli.tgz`,
        ],
        { timeout: 110_000, env: { ...process.env, npm_config_update_notifier: 'false' } },
      );
      const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'packages/cli/package.json'), 'utf8'));
      const { stdout } = await run(path.join(prefix, 'bin', 'sitehall'), ['--version']);
      expect(stdout.trim()).toBe(`sitehall ${pkg.version}`);
    } finally {
      fs.rmSync(prefix, { recursive: true, force: true });
      fs.rmSync(cache, { recursive: true, force: true });
    }
  });
});
