/**
 * kill -9 never leaves a reference to a missing blob (docs/decisions/instances.md "Orphan sweep safety"), on
 * S3 (s3rver): a real server process is killed at each step of an upload (receiving the body,
 * unpacking, storing its blobs, just after the commit) and of a digest deploy (started, a file half
 * sent, every file stored, finishing). After each kill a new instance starts (its start sweeps what
 * the dead one left), and then every blob a row refers to is in the bucket, every blob in the
 * bucket is referenced or held by a deploy still open, and no lease of the dead instance is left.
 * A deploy interrupted before its finish can still be finished on the new instance. Both engines.
 */
import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type BuiltApp, buildApp } from '../src/app.js';
import { type Config, loadConfig } from '../src/config.js';
import { type DatabaseHandle, openDatabase } from '../src/db/database.js';
import * as deploymentFiles from '../src/repositories/deployment-files.js';
import { createTestApp, listTree, makeZip, type TestApp } from './helpers.js';
import { type ChildServer, startChildServer } from './support/children.js';
import { type LocalS3, startS3rver } from './support/s3rver.js';

const sha = (content: Buffer) => createHash('sha256').update(content).digest('hex');

async function waitFor(what: string, check: () => boolean | Promise<boolean>, ms = 120_000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`${what}: not reached within ${ms} ms`);
}

let s3: LocalS3;
let ref: TestApp;
let database: Config['database'];
let dataDir: string;
let owner: { username: string; password: string };
/** The test's own connection, to see how far the child has come. */
let watch: DatabaseHandle;

// Each test has its own bucket and database: what one kill leaves is checked alone.
beforeEach(async () => {
  s3 = await startS3rver();
  // A reference app makes the database and the user; the servers killed and started use them.
  ref = await createTestApp();
  owner = await ref.createUser();
  database = ref.config.database;
  dataDir = ref.dataDir;
  await ref.app.close();
  watch = openDatabase(database);
});
afterEach(async () => {
  await watch?.close();
  await ref?.close().catch(() => {});
  await s3?.close();
});

const env = () => ({ ...s3.env, RENDER_WORKER: 'off' });

async function startChild(): Promise<{ child: ChildServer; token: string }> {
  const child = await startChildServer({ dataDir, database, env: env() });
  const res = await fetch(`http://127.0.0.1:${child.port}/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: owner.username, password: owner.password }),
  });
  const { data } = (await res.json()) as { data: { token: string } };
  return { child, token: data.token };
}

async function kill(child: ChildServer): Promise<void> {
  const exited = new Promise((r) => child.process.once('exit', r));
  child.process.kill('SIGKILL');
  await exited;
}

/** A new instance on the same database and bucket; its start sweeps the dead one's leftovers. */
async function restarted(): Promise<BuiltApp> {
  const config = loadConfig(
    {
      NODE_ENV: 'test',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      WEB_DIST: path.join(dataDir, 'no-web'),
      SITES_PORT: '0',
      ...env(),
    },
    database.kind === 'postgres' ? { database } : {},
  );
  const built = await buildApp(config, { logger: false });
  await built.startup;
  return built;
}

/** Every reference resolves; every blob is referenced or a live deploy's; no upload lease is left. */
async function expectConsistent(built: BuiltApp, what: string): Promise<void> {
  const referenced = await deploymentFiles.referencedHashes(built.ctx.db);
  const missing = [];
  for (const h of referenced) if (!(await built.ctx.store.stat(h))) missing.push(h);
  expect(missing, `${what}: referenced blobs missing from the bucket`).toEqual([]);
  const leases = await built.ctx.db.selectFrom('blob_leases').select(['upload_id', 'sha256']).execute();
  expect(
    leases.filter((l) => !l.upload_id.startsWith('deploy:')),
    `${what}: leases of the dead instance`,
  ).toEqual([]);
  const kept = new Set([...referenced, ...leases.map((l) => l.sha256)]);
  const orphans = [];
  for await (const h of built.ctx.store.list()) if (!kept.has(h)) orphans.push(h);
  expect(orphans, `${what}: blobs nothing refers to`).toEqual([]);
}

function multipartBody(boundary: string, zip: Buffer): Buffer {
  return Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="project_name"\r\n\r\n崩溃测试\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="site.zip"\r\nContent-Type: application/zip\r\n\r\n`,
    ),
    zip,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
}

/** Sends `body` (or its first `sendBytes`) as an upload and leaves the request open. */
function sendUpload(port: number, token: string, body: Buffer, boundary: string, sendBytes = body.length) {
  const req = http.request({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: '/api/projects/upload',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': String(body.length),
    },
  });
  req.on('error', () => {});
  req.on('response', (res) => res.resume());
  req.write(body.subarray(0, sendBytes));
  if (sendBytes === body.length) req.end();
  return req;
}

const count = async (table: 'deployments' | 'blob_leases' | 'deploys') =>
  Number(
    (
      await watch.db
        .selectFrom(table)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );
const uploadLeases = async () =>
  (await watch.db.selectFrom('blob_leases').select('upload_id').execute()).filter(
    (l) => !l.upload_id.startsWith('deploy:'),
  ).length;
const staged = (kind: 'in' | 'work') =>
  listTree(path.join(dataDir, 'staging')).some((f) => f.includes(`/${kind}/`));

describe('kill -9 at each step of an upload, on S3', () => {
  const steps: Array<{ step: string; partial?: boolean; until: () => Promise<boolean> | boolean }> = [
    { step: 'receiving the body', partial: true, until: () => staged('in') },
    { step: 'unpacking', until: () => staged('work') },
    { step: 'storing its blobs', until: async () => (await uploadLeases()) > 0 },
    { step: 'just after the commit', until: async () => (await count('deployments')) > deploymentsBefore },
  ];
  let deploymentsBefore = 0;
  for (const { step, partial, until } of steps) {
    it(`killed while ${step}: every reference resolves after the restart`, async () => {
      deploymentsBefore = await count('deployments');
      const entries: Record<string, string> = { 'index.html': `<h1>${step}</h1>` };
      // Distinct contents (each a blob of its own), enough to take a while on S3.
      for (let i = 0; i < 150; i++)
        entries[`p/${i}.html`] = `<p>${step} ${i} ${randomBytes(8).toString('hex')}</p>`;
      const body = multipartBody('crashboundary', await makeZip(entries));
      const { child, token } = await startChild();
      try {
        sendUpload(child.port, token, body, 'crashboundary', partial ? 64 * 1024 : body.length);
        await waitFor(step, until);
      } finally {
        await kill(child);
      }
      const built = await restarted();
      try {
        await expectConsistent(built, step);
        expect(listTree(path.join(dataDir, 'staging'))).toEqual([]);
      } finally {
        await built.app.close();
      }
    }, 240_000);
  }
});

describe('kill -9 at each step of a digest deploy, on S3', () => {
  const steps = ['started', 'a file half sent', 'every file stored', 'finishing'] as const;
  for (const step of steps) {
    it(`killed when ${step}: every reference resolves, and an open deploy can still be finished`, async () => {
      const files = {
        'index.html': Buffer.from(`<!doctype html><h1>${step}</h1>`),
        'about.html': Buffer.from(`<p>${randomBytes(16).toString('hex')}</p>`),
        'media/big.pdf': Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(3 * 1024 * 1024)]),
      };
      const manifest = Object.fromEntries(Object.entries(files).map(([n, c]) => [n, sha(c)]));
      const { child, token } = await startChild();
      const api = (p: string, init: RequestInit = {}) =>
        fetch(`http://127.0.0.1:${child.port}/api${p}`, {
          ...init,
          headers: { authorization: `Bearer ${token}`, ...(init.headers ?? {}) },
        });
      let deployId: string;
      try {
        const started = await api('/deploys', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ project_name: `部署${step}`, files: manifest }),
        });
        expect(started.status).toBe(201);
        deployId = ((await started.json()) as { data: { deploy_id: string } }).data.deploy_id;
        if (step === 'a file half sent') {
          const big = files['media/big.pdf'];
          const req = http.request({
            host: '127.0.0.1',
            port: child.port,
            method: 'PUT',
            path: `/api/deploys/${deployId}/files/${sha(big)}`,
            headers: {
              authorization: `Bearer ${token}`,
              'content-type': 'application/octet-stream',
              'content-length': String(big.length),
            },
          });
          req.on('error', () => {});
          req.write(big.subarray(0, big.length / 2));
          await waitFor(step, () => listTree(path.join(dataDir, 'staging')).length > 0);
        }
        if (step === 'every file stored' || step === 'finishing') {
          for (const content of Object.values(files)) {
            const put = await api(`/deploys/${deployId}/files/${sha(content)}`, {
              method: 'PUT',
              headers: { 'content-type': 'application/octet-stream' },
              body: content,
            });
            expect(put.status).toBe(200);
          }
        }
        if (step === 'finishing') {
          void api(`/deploys/${deployId}/finish`, { method: 'POST' }).catch(() => {});
          // The deploy's row is taken as its finish begins: killed between that and the answer.
          await waitFor(step, async () => (await count('deploys')) === 0);
        }
      } finally {
        await kill(child);
      }
      const built = await restarted();
      try {
        await expectConsistent(built, step);
        if (step !== 'finishing') {
          // Not finished: the client sends its files again and finishes on the new instance.
          const login = await built.app.inject({
            method: 'POST',
            url: '/api/auth/login',
            payload: { username: owner.username, password: owner.password },
          });
          const auth = { authorization: `Bearer ${login.json().data.token}` };
          for (const content of Object.values(files)) {
            const put = await built.app.inject({
              method: 'PUT',
              url: `/api/deploys/${deployId!}/files/${sha(content)}`,
              headers: { ...auth, 'content-type': 'application/octet-stream' },
              payload: content,
            });
            expect(put.statusCode, put.body).toBe(200);
          }
          const finished = await built.app.inject({
            method: 'POST',
            url: `/api/deploys/${deployId!}/finish`,
            headers: auth,
          });
          expect(finished.statusCode, finished.body).toBe(201);
          await expectConsistent(built, `${step}, then finished`);
        }
      } finally {
        await built.app.close();
      }
    }, 240_000);
  }
});
