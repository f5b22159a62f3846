/**
 * A local S3-compatible server for tests and benchmarks: s3rver on a free loopback port, in a
 * child process, with one fresh bucket whose files live in a temp folder removed on close. The
 * storage contract tests, the app tests on S3 and the cluster test all start theirs here.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** s3rver's built-in account: clients must sign with these. */
export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export interface LocalS3 {
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** The environment that points SiteHall at this bucket (the S3_* variables of config.ts). */
  env: Record<string, string>;
  close(): Promise<void>;
}

const MAIN = path.join(import.meta.dirname, 's3rver-main.mjs');

export async function startS3rver(opts: { bucket?: string } = {}): Promise<LocalS3> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'sitehall-s3rver-'));
  // Bucket names: 3-63 lower-case letters, digits and hyphens.
  const bucket = opts.bucket ?? `sitehall-${randomBytes(4).toString('hex')}`;
  const child = spawn(process.execPath, ['--openssl-legacy-provider', MAIN, directory, bucket], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let port: number;
  try {
    port = await portOf(child);
  } catch (error) {
    child.kill('SIGKILL');
    fs.rmSync(directory, { recursive: true, force: true });
    throw error;
  }
  const endpoint = `http://127.0.0.1:${port}`;
  const region = 'us-east-1';
  return {
    endpoint,
    bucket,
    region,
    ...S3RVER_CREDENTIALS,
    env: {
      STORAGE: 's3',
      S3_ENDPOINT: endpoint,
      S3_REGION: region,
      S3_BUCKET: bucket,
      S3_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
      S3_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
      S3_FORCE_PATH_STYLE: 'true',
    },
    async close() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}

function portOf(child: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const m = /PORT (\d+)/.exec(out);
      if (m) {
        child.stdout?.off('data', onData);
        resolve(Number(m[1]));
      }
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`s3rver exited (${code}) before listening`)));
    child.once('error', reject);
  });
}
