/** Starts support/child-server.ts in a process of its own and waits for its port. */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import type { Config } from '../../src/config.js';

export interface ChildServer {
  process: ChildProcess;
  port: number;
  /** Stops it (SIGTERM) and waits for the exit. */
  stop(): Promise<void>;
}

export async function startChildServer(spec: {
  dataDir: string;
  database?: Config['database'];
  env?: Record<string, string>;
}): Promise<ChildServer> {
  const child = spawn(
    process.execPath,
    ['--conditions=source', '--import', 'tsx', path.join(import.meta.dirname, 'child-server.ts')],
    {
      env: { ...process.env, SITEHALL_TEST_CONFIG: JSON.stringify(spec) },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  // Its stderr still reaches ours; the last of it is kept so a failed start says why.
  let errTail = '';
  child.stderr!.on('data', (d: Buffer) => {
    process.stderr.write(d);
    errTail = (errTail + d.toString()).slice(-4000);
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /PORT (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.on('exit', (code) =>
      reject(new Error(`child server exited with ${code} before listening${errTail ? `:\n${errTail}` : ''}`)),
    );
  });
  return {
    process: child,
    port,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
