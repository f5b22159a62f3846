/** A server of a test file's own, beside the suite's (e2e/start-server.mjs on a fresh data folder). */
import { type ChildProcess, spawn } from 'node:child_process';
import { E2E_ADMIN_PASSWORD } from './env';

// A port free right now, below the kernel's ephemeral range (so nothing else takes it before the
// server listens): servers of a file stay off the suite's fixed ports.
export { freePort } from '../server/test/support/ports';

/** The built server on `port` with `env` added, once it answers /healthz. */
export async function startServer(port: number, env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['e2e/start-server.mjs'], {
    env: { ...process.env, E2E_PORT: String(port), ADMIN_PASSWORD: E2E_ADMIN_PASSWORD, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
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

export async function stopServer(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}
