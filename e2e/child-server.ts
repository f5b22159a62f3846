/** A server of a test file's own, beside the suite's (e2e/start-server.mjs on a fresh data folder). */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { E2E_ADMIN_PASSWORD } from './env';

// A port free right now, below the kernel's ephemeral range (so nothing else takes it before the
// server listens): servers of a file stay off the suite's fixed ports.
export { freePort } from '../server/test/support/ports';

/** Each server's data folder (e2e/start-server.mjs's, by its port): removed once it has stopped. */
const dataDirs = new WeakMap<ChildProcess, string>();

/** The built server on `port` with `env` added, once it answers /healthz. */
export async function startServer(port: number, env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['e2e/start-server.mjs'], {
    env: { ...process.env, E2E_PORT: String(port), ADMIN_PASSWORD: E2E_ADMIN_PASSWORD, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  dataDirs.set(child, path.resolve(`.tmp/e2e-data-${port}`));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server with ${JSON.stringify(env)} exited`);
    const up = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return child;
    if (Date.now() > deadline) throw new Error('server did not start within 60 s');
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Stops the server and removes its data folder: a file's servers run on free ports, each a new
 * folder, which would otherwise pile up under .tmp run after run (the suite's own servers, on fixed
 * ports, start on a wiped folder and keep theirs for a look after the run).
 */
export async function stopServer(child: ChildProcess | undefined): Promise<void> {
  if (!child) return;
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  const dir = dataDirs.get(child);
  if (dir) fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}
