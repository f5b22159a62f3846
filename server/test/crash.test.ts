import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { openDatabase } from '../src/db/database.js';
import { createTestApp, listTree, makeZip, projectRowCounts, type TestApp } from './helpers.js';
import { type ChildServer, startChildServer } from './support/children.js';

const blobFiles = (dataDir: string) =>
  listTree(path.join(dataDir, 'blobs')).filter((f) => /[0-9a-f]{64}$/.test(f));

async function waitFor(check: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

/** Sends the start of a multipart upload and keeps the request open. */
function startUpload(port: number, token: string, body: Buffer, declaredLength: number, boundary: string) {
  const req = http.request({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: '/api/projects/upload',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': String(declaredLength),
    },
  });
  req.on('error', () => {});
  req.write(body);
  return req;
}

function multipartHead(boundary: string, filename: string) {
  return Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="project_name"\r\n\r\n断线测试\r\n` +
      `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="${filename}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
  );
}

describe('crash safety', () => {
  let t: TestApp;
  let token: string;
  beforeAll(async () => {
    t = await createTestApp();
    token = (await t.createUser()).token;
  });
  afterAll(() => t.close());

  it('a client that disconnects mid-upload leaves nothing within seconds', async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (t.app.server.address() as { port: number }).port;
    const boundary = 'sitehallboundary';
    const req = startUpload(
      port,
      token,
      Buffer.concat([multipartHead(boundary, 'index.html'), Buffer.alloc(256 * 1024, 'a')]),
      10 * 1024 * 1024,
      boundary,
    );
    const staging = path.join(t.dataDir, 'staging');
    expect(await waitFor(() => listTree(staging).some((f) => f.endsWith('/in/0')), 60_000)).toBe(true);
    req.destroy();
    expect(await waitFor(() => listTree(staging).length === 0, 60_000)).toBe(true);
    expect(await projectRowCounts(t)).toEqual({ projects: 0, deployments: 0, files: 0 });
  });
});

describe('a server killed mid-ingest', () => {
  let child: ChildServer | undefined;
  afterAll(() => child?.process.kill('SIGKILL'));

  it('restarts with no half project, no staging leftovers and no orphan blobs', async () => {
    // A reference app makes the database (and the user) that the child server then uses.
    const t = await createTestApp();
    const owner = await t.createUser();
    const dataDir = t.dataDir;
    const database = t.config.database;
    await t.app.close();

    // Leftovers from an earlier crash after blobs were stored but before their rows: an orphan
    // blob and a staging folder.
    const orphan = 'ab'.repeat(32);
    fs.mkdirSync(path.join(dataDir, 'blobs', 'ab', 'ab'), { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'blobs', 'ab', 'ab', orphan), 'orphan');
    fs.mkdirSync(path.join(dataDir, 'staging', 'old-upload', 'in'), { recursive: true });
    fs.writeFileSync(path.join(dataDir, 'staging', 'old-upload', 'in', '0'), 'partial');

    child = await startChildServer({ dataDir, database });
    const port = child.port;
    // Its own start swept the old leftovers.
    expect(fs.existsSync(path.join(dataDir, 'staging', 'old-upload'))).toBe(false);
    expect(blobFiles(dataDir)).not.toContain(`ab/ab/${orphan}`);

    // A zip of many files keeps the ingest busy long enough to kill the server during it.
    const entries: Record<string, string> = { 'index.html': '<h1>big</h1>' };
    for (let i = 0; i < 3000; i++) entries[`pages/p${i}.html`] = `<p>page ${i} ${'x'.repeat(2000)}</p>`;
    const zip = await makeZip(entries);
    const boundary = 'killboundary';
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const body = Buffer.concat([multipartHead(boundary, 'site.zip'), zip, tail]);
    const login = await fetch(`http://127.0.0.1:${port}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: owner.username, password: owner.password }),
    });
    const { data } = (await login.json()) as { data: { token: string } };
    const req = startUpload(port, data.token, body, body.length, boundary);
    req.end();
    const staging = path.join(dataDir, 'staging');
    // Kill once the archive is being extracted.
    expect(
      await waitFor(
        () => listTree(staging).some((f) => f.includes('/work/') && f.endsWith('.html')),
        120_000,
      ),
    ).toBe(true);
    child.process.kill('SIGKILL');
    await new Promise((r) => child!.process.once('exit', r));
    expect(listTree(staging).length).toBeGreaterThan(0);

    // Restart: the sweep clears everything the killed ingest left.
    const config = loadConfig(
      { NODE_ENV: 'test', DATA_DIR: dataDir, LOG_LEVEL: 'silent', WEB_DIST: `${dataDir}/no-web` },
      database.kind === 'postgres' ? { database } : {},
    );
    const restarted = await buildApp(config, { logger: false });
    try {
      expect(listTree(staging)).toEqual([]);
      const rows = await restarted.ctx.db.selectFrom('deployment_files').select('sha256').execute();
      const referenced = new Set(rows.map((r) => r.sha256));
      expect(blobFiles(dataDir).filter((f) => !referenced.has(f.slice(-64)))).toEqual([]);
      const projects = await restarted.ctx.db.selectFrom('projects').selectAll().execute();
      expect(projects).toEqual([]);
    } finally {
      await restarted.app.close();
      // The reference app's own cleanup: its data folder and, on PostgreSQL, its database (the
      // app itself was closed before the child started).
      await t.close();
    }
  }, 240_000);
});

describe('a server killed mid-commit', () => {
  let child: ChildServer | undefined;
  afterAll(() => child?.process.kill('SIGKILL'));

  it('leaves blobs and leases that the next start sweeps at once (not after an hour)', async () => {
    const t = await createTestApp();
    const owner = await t.createUser();
    const dataDir = t.dataDir;
    const database = t.config.database;
    await t.app.close();

    // Durable blob writes (an fsync each) make storing 2,000 files take long enough to kill it.
    child = await startChildServer({ dataDir, database });
    const entries: Record<string, string> = { 'index.html': '<h1>commit</h1>' };
    for (let i = 0; i < 2000; i++) entries[`pages/p${i}.html`] = `<p>page ${i}</p>`;
    const zip = await makeZip(entries);
    const boundary = 'commitboundary';
    const body = Buffer.concat([
      multipartHead(boundary, 'site.zip'),
      zip,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const login = await fetch(`http://127.0.0.1:${child.port}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: owner.username, password: owner.password }),
    });
    const { data } = (await login.json()) as { data: { token: string } };
    startUpload(child.port, data.token, body, body.length, boundary).end();

    // Kill once the commit step has stored some blobs (and so leased them) but not all.
    expect(await waitFor(() => blobFiles(dataDir).length > 0, 120_000)).toBe(true);
    child.process.kill('SIGKILL');
    await new Promise((r) => child!.process.once('exit', r));
    const stored = blobFiles(dataDir).length;
    expect(stored).toBeGreaterThan(0);
    expect(stored).toBeLessThan(2001);
    // The killed upload's leases are still there (it never released them).
    const before = openDatabase(database);
    try {
      expect((await before.db.selectFrom('blob_leases').select('sha256').execute()).length).toBeGreaterThan(
        0,
      );
    } finally {
      await before.close();
    }

    const config = loadConfig(
      { NODE_ENV: 'test', DATA_DIR: dataDir, LOG_LEVEL: 'silent', WEB_DIST: `${dataDir}/no-web` },
      database.kind === 'postgres' ? { database } : {},
    );
    const restarted = await buildApp(config, { logger: false });
    try {
      // The leases are minutes old, not an hour: they go because their process is gone.
      expect(await restarted.ctx.db.selectFrom('blob_leases').selectAll().execute()).toEqual([]);
      expect(blobFiles(dataDir)).toEqual([]);
      expect(listTree(path.join(dataDir, 'staging'))).toEqual([]);
      expect(await restarted.ctx.db.selectFrom('projects').selectAll().execute()).toEqual([]);
      const { body: metrics } = await restarted.ctx.metrics.scrape();
      expect(
        Number(/sitehall_sweep_reclaimed_bytes_total\{kind="blobs"\} (\d+)/.exec(metrics)?.[1]),
      ).toBeGreaterThan(0);
      expect(
        Number(/sitehall_sweep_reclaimed_bytes_total\{kind="staging"\} (\d+)/.exec(metrics)?.[1]),
      ).toBeGreaterThan(0);
    } finally {
      await restarted.app.close();
      // The reference app's own cleanup: its data folder and, on PostgreSQL, its database (the
      // app itself was closed before the child started).
      await t.close();
    }
  }, 240_000);
});
