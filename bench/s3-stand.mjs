// The S3 stand of the chaos run (docs/benchmarks.md "Chaos"): s3rver (server/test/support/
// s3rver-main.mjs) under a supervisor that starts it again, on the same port and folder, whenever it
// exits. s3rver is the only S3 server that installs here (npm or Debian), and it exited under
// concurrent puts and deletes (issue 28's run, session 23's; its store's race is patched in
// s3rver-main.mjs since session 53); a store that is away for a moment is a
// storage outage SiteHall must ride out anyway, so the run counts these restarts and reports them
// rather than letting one end the stand for good (docs/decisions/faults.md "The chaos run's S3 stand").
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';

const MAIN = path.resolve(import.meta.dirname, '../server/test/support/s3rver-main.mjs');

/** Resolves with the port s3rver printed, or rejects when it exits first. */
function portOf(child) {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const m = /PORT (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code, signal) =>
      reject(new Error(`s3rver exited (${code ?? signal}) before listening`)),
    );
  });
}

/**
 * Starts the stand: `dir` holds the bucket's files, `log` receives s3rver's stderr. Returns the
 * endpoint, the environment that points SiteHall at it, the restarts so far and stop().
 */
export async function startS3Stand({ dir, bucket, log }) {
  let port = 0;
  let child;
  let stopping = false;
  const restarts = [];
  const launch = async () => {
    child = spawn(process.execPath, ['--openssl-legacy-provider', MAIN, dir, bucket, String(port)], {
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stderr.on('data', (chunk) => log?.write(chunk));
    // The stand stands for another machine: the instances' load (and whatever else this machine
    // runs) must not make it slow enough to look like an outage. Needs root; skipped without.
    try {
      os.setPriority(child.pid, -10);
    } catch {}
    child.stdin.on('error', () => {});
    const started = child;
    port = await portOf(started);
    started.once('exit', (code, signal) => {
      if (stopping) return;
      restarts.push({ at: Date.now(), code, signal });
      log?.write(`\n[stand] s3rver exited (${code ?? signal}); starting it again\n`);
      // The port may linger for a moment: try until it listens again.
      const again = () => launch().catch(() => setTimeout(again, 100));
      again();
    });
  };
  await launch();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    port,
    endpoint,
    restarts,
    env: {
      STORAGE: 's3',
      S3_ENDPOINT: endpoint,
      S3_REGION: 'us-east-1',
      S3_BUCKET: bucket,
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
      S3_FORCE_PATH_STYLE: 'true',
    },
    async stop() {
      stopping = true;
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
    },
  };
}
