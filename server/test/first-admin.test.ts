/**
 * `npm start` on a fresh data folder (server/dist/main.js, as the README runs it): the first admin
 * exists before the port opens, so a sign-in sent the moment /healthz answers succeeds (the browser
 * tests start their servers this way and sign in at once).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { freePort, tempDir } from './helpers.js';

const main = path.resolve(import.meta.dirname, '../dist/main.js');
const PASSWORD = 'harbor-lantern-keeper-77';
let child: ChildProcess | undefined;
let dir: string | undefined;

afterEach(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

it('signs the first admin in as soon as /healthz answers', async () => {
  dir = tempDir();
  const port = await freePort();
  // The sites port too: its default, PORT + 1, may be another test's (a start stops when it is
  // taken: sites-port.test.ts), which failed this test once in CI.
  const sitesPort = await freePort();
  child = spawn(process.execPath, [main], {
    env: {
      ...process.env,
      DATA_DIR: dir,
      PORT: String(port),
      SITES_PORT: String(sitesPort === port ? 0 : sitesPort),
      HOST: '127.0.0.1',
      ADMIN_PASSWORD: PASSWORD,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<never>((_, reject) =>
    child!.once('exit', (code) => reject(new Error(`exited with ${code}`))),
  );
  const up = async () => {
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return;
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  exited.catch(() => {}); // its exit at the end is no failure; before /healthz it is (the race)
  await Promise.race([up(), exited]);
  const res = await fetch(`http://127.0.0.1:${port}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: PASSWORD }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  const body = (await res.json()) as { data: { user: unknown } };
  expect(body.data.user).toMatchObject({ username: 'admin', role: 'admin' });
});
