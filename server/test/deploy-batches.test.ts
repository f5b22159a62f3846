/**
 * A digest deploy's batches (POST /api/deploys/{id}/files, docs/decisions/deploys.md "Batched file
 * uploads"): several files in one multipart body over a real socket, each checked against the
 * SHA-256 its part claims; a lying part, a quota that runs out halfway, a client that goes away
 * mid-body, too many parts, a field that is no file: each refused in Chinese, and none of them
 * leaves a byte in the store or staging, a reserved byte in the account's usage, or a content
 * that finish would take.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { DEPLOY_BATCH_FILES_MAX, format, formatBytes, messages } from '@sitehall/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sentLease } from '../src/services/deploys.js';
import { createTestApp, listenPort, listTree, type TestApp } from './helpers.js';

const m = messages.deploy;
let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await createTestApp();
  base = `http://127.0.0.1:${await listenPort(t)}`;
});
afterAll(() => t.close());

/** An answer's envelope; `data` read as each test expects it. */
// biome-ignore lint/suspicious/noExplicitAny: the answers of several endpoints, read field by field
type Envelope = { message?: string; data: any };

const sha = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');

async function api(token: string, method: string, url: string, body?: unknown) {
  const res = await fetch(`${base}${url}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, json: (await res.json()) as Envelope };
}

async function start(token: string, files: Record<string, string | Buffer>, name: string) {
  const manifest = Object.fromEntries(Object.entries(files).map(([p, c]) => [p, sha(c)]));
  const res = await api(token, 'POST', '/api/deploys', { project_name: name, files: manifest });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json.data as { deploy_id: string; required: string[]; batch?: { max_files: number } };
}

/** One batch: each part named by the hash it claims, with these bytes. */
async function batch(token: string, deployId: string, parts: [string, string | Buffer][]) {
  const form = new FormData();
  for (const [name, bytes] of parts) form.append(name, new Blob([bytes]), 'file');
  const res = await fetch(`${base}/api/deploys/${deployId}/files`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  return { status: res.status, json: (await res.json()) as Envelope };
}

async function receivedBytes(deployId: string): Promise<number> {
  const row = await t.ctx.db
    .selectFrom('deploys')
    .select('received_bytes')
    .where('id', '=', deployId)
    .executeTakeFirstOrThrow();
  return Number(row.received_bytes);
}

async function sent(deployId: string): Promise<Set<string>> {
  return t.ctx.cluster.leases.leasedBy(t.ctx.db, sentLease(deployId));
}

const staging = () => listTree(path.join(t.dataDir, 'staging'));

function unique(label: string, size = 0): string {
  return `<!doctype html><p>${label} ${Math.random()}</p>`.padEnd(size, 'x');
}

/** Nothing of a refused batch is anywhere: store, staging, the deploy's count, its sent lease. */
async function expectNothingKept(deployId: string, hashes: string[]) {
  for (const h of hashes) expect(await t.ctx.store.stat(h)).toBeNull();
  expect(staging()).toEqual([]);
  expect(await receivedBytes(deployId)).toBe(0);
  expect([...(await sent(deployId))]).toEqual([]);
}

describe('batched deploy uploads', () => {
  it('takes a whole site in one batch, and the version serves it byte for byte', async () => {
    const user = await t.createUser();
    const files: Record<string, string | Buffer> = { 'index.html': unique('首页') };
    for (let i = 0; i < 40; i++) files[`p/${i}.css`] = `.c${i} { content: "${Math.random()}"; }`;
    files['img/a.png'] = Buffer.concat([
      Buffer.from('89504e470d0a1a0a', 'hex'),
      Buffer.alloc(3000, Math.random() * 255),
    ]);
    const started = await start(user.token, files, '批量上传');
    expect(started.batch).toEqual({ max_files: DEPLOY_BATCH_FILES_MAX });
    expect(started.required).toHaveLength(42);
    const byHash = new Map(Object.values(files).map((c) => [sha(c), c]));
    const res = await batch(
      user.token,
      started.deploy_id,
      started.required.map((h) => [h, byHash.get(h)!]),
    );
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.message).toBe(format(m.filesReceived, { n: 42 }));
    expect(await sent(started.deploy_id)).toEqual(new Set(started.required));
    const total = Object.values(files).reduce((n, c) => n + Buffer.byteLength(c), 0);
    expect(await receivedBytes(started.deploy_id)).toBe(total);
    expect(staging()).toEqual([]);

    const finished = await api(user.token, 'POST', `/api/deploys/${started.deploy_id}/finish`);
    expect(finished.status, JSON.stringify(finished.json)).toBe(201);
    const project = finished.json.data.project;
    for (const [p, c] of Object.entries(files)) {
      const blob = await t.ctx.store.read(sha(c));
      const chunks: Buffer[] = [];
      for await (const chunk of blob) chunks.push(chunk as Buffer);
      expect(Buffer.concat(chunks).equals(Buffer.from(c)), p).toBe(true);
    }
    const rows = await t.ctx.db
      .selectFrom('deployment_files')
      .innerJoin('deployments', 'deployments.id', 'deployment_files.deployment_id')
      .select(['deployment_files.path', 'deployment_files.sha256'])
      .where('deployments.project_id', '=', project.id)
      .execute();
    expect(Object.fromEntries(rows.map((r) => [r.path, r.sha256]))).toEqual(
      Object.fromEntries(Object.entries(files).map(([p, c]) => [p, sha(c)])),
    );
  });

  it('stores small parts from memory and large ones through staging files, every one byte for byte', async () => {
    // Parts of at most 1 MB are kept in memory, up to 8 MB a batch; a larger part, and those past
    // the batch's 8 MB, stream through staging files (docs/decisions/deploys.md "Batched file uploads").
    const user = await t.createUser();
    const files: Record<string, string | Buffer> = { 'index.html': unique('大小混合') };
    for (let i = 0; i < 10; i++) files[`small/${i}.js`] = Buffer.alloc(100 * 1024, `s${i}${Math.random()}`);
    for (let i = 0; i < 9; i++) files[`mb/${i}.js`] = Buffer.alloc(1024 * 1024 - 1, `m${i}${Math.random()}`);
    for (let i = 0; i < 2; i++) files[`large/${i}.bin`] = Buffer.alloc(1536 * 1024, `l${i}${Math.random()}`);
    const started = await start(user.token, files, '混合批量');
    const byHash = new Map(Object.values(files).map((c) => [sha(c), c]));
    const stagingDir = path.join(t.dataDir, 'staging');
    fs.mkdirSync(stagingDir, { recursive: true });
    const stagedNames = new Set<string>();
    const watcher = fs.watch(stagingDir, (_event, name) => {
      if (name) stagedNames.add(String(name));
    });
    try {
      const res = await batch(
        user.token,
        started.deploy_id,
        started.required.map((h) => [h, byHash.get(h)!]),
      );
      expect(res.status, JSON.stringify(res.json)).toBe(200);
    } finally {
      watcher.close();
    }
    // The two large parts at least went through files; none is left.
    expect(stagedNames.size).toBeGreaterThanOrEqual(2);
    expect(staging()).toEqual([]);
    for (const [p, c] of Object.entries(files)) {
      const chunks: Buffer[] = [];
      for await (const chunk of await t.ctx.store.read(sha(c))) chunks.push(chunk as Buffer);
      expect(Buffer.concat(chunks).equals(Buffer.from(c)), p).toBe(true);
    }
    const finished = await api(user.token, 'POST', `/api/deploys/${started.deploy_id}/finish`);
    expect(finished.status, JSON.stringify(finished.json)).toBe(201);
  });

  it('refuses a batch with one lying part, and keeps none of its parts', async () => {
    const user = await t.createUser();
    const files = { 'index.html': unique('a'), 'b.html': unique('b'), 'c.html': unique('c') };
    const started = await start(user.token, files, '哈希不符');
    const [a, b, c] = [sha(files['index.html']), sha(files['b.html']), sha(files['c.html'])];
    const res = await batch(user.token, started.deploy_id, [
      [a, files['index.html']],
      [b, 'not what b.html holds'],
      [c, files['c.html']],
    ]);
    expect(res.status).toBe(400);
    expect(res.json.message).toBe(format(m.hashMismatch, { sha256: b }));
    await expectNothingKept(started.deploy_id, [a, b, c, sha('not what b.html holds')]);
    const early = await api(user.token, 'POST', `/api/deploys/${started.deploy_id}/finish`);
    expect(early.status).toBe(400);
    expect(early.json.message).toBe(format(m.filesMissing, { n: 3 }));
  });

  it('refuses parts the manifest does not name, names that are no hash, repeats and text fields', async () => {
    const user = await t.createUser();
    const files = { 'index.html': unique('x') };
    const started = await start(user.token, files, '不在清单');
    const h = sha(files['index.html']);
    const other = await batch(user.token, started.deploy_id, [[sha('other'), 'other']]);
    expect([other.status, other.json.message]).toEqual([
      400,
      format(m.hashNotInDeploy, { sha256: sha('other') }),
    ]);
    const bad = await batch(user.token, started.deploy_id, [['../../etc/passwd', 'x']]);
    expect([bad.status, bad.json.message]).toEqual([400, m.hashInvalid]);
    const twice = await batch(user.token, started.deploy_id, [
      [h, files['index.html']],
      [h, files['index.html']],
    ]);
    expect([twice.status, twice.json.message]).toEqual([400, format(m.batchDuplicate, { sha256: h })]);
    const form = new FormData();
    form.append('note', 'hello');
    const field = await fetch(`${base}/api/deploys/${started.deploy_id}/files`, {
      method: 'POST',
      headers: { authorization: `Bearer ${user.token}` },
      body: form,
    });
    expect(field.status).toBe(400);
    expect(((await field.json()) as { message: string }).message).toBe(m.batchNotFile);
    await expectNothingKept(started.deploy_id, [h]);
    // Another account's deploy is not found, whatever the body.
    const stranger = await t.createUser();
    const foreign = await batch(stranger.token, started.deploy_id, [[h, files['index.html']]]);
    expect([foreign.status, foreign.json.message]).toEqual([404, m.deployNotFound]);
    await expectNothingKept(started.deploy_id, [h]);
  });

  it(`refuses a batch of more than ${DEPLOY_BATCH_FILES_MAX} files with 413`, async () => {
    const user = await t.createUser();
    const files: Record<string, string> = { 'index.html': unique('many') };
    for (let i = 0; i < DEPLOY_BATCH_FILES_MAX; i++) files[`f/${i}.txt`] = `${i} ${Math.random()}`;
    const started = await start(user.token, files, '太多文件');
    const res = await batch(
      user.token,
      started.deploy_id,
      Object.values(files).map((c) => [sha(c), c]),
    );
    expect(res.status).toBe(413);
    expect(res.json.message).toBe(format(m.batchTooManyFiles, { n: DEPLOY_BATCH_FILES_MAX }));
    await expectNothingKept(started.deploy_id, Object.values(files).slice(0, 5).map(sha));
  });

  it('refuses a batch the quota runs out in halfway, and keeps and holds nothing of it', async () => {
    const user = await t.createUser();
    const quota = 10 * 1024 * 1024;
    const set = await t.request({
      method: 'PATCH',
      url: `/api/admin/users/${user.id}`,
      token: await t.adminToken(),
      body: { storage_quota_bytes: quota },
    });
    expect(set.statusCode, set.body).toBe(200);
    const files = {
      'index.html': unique('首页'),
      'a.txt': Buffer.alloc(6 * 1024 * 1024, `a${Math.random()}`),
      'b.txt': Buffer.alloc(6 * 1024 * 1024, `b${Math.random()}`),
    };
    const started = await start(user.token, files, '配额中途用完');
    const res = await batch(
      user.token,
      started.deploy_id,
      Object.values(files).map((c) => [sha(c), c]),
    );
    expect(res.status).toBe(413);
    // The bytes the batch needed when it was refused depend on where the stream stood.
    const [before, after] = format(messages.project.storageQuotaExceeded, {
      used: formatBytes(0),
      quota: formatBytes(quota),
      needed: '\u0000',
    }).split('\u0000');
    expect(res.json.message!.startsWith(before!), res.json.message).toBe(true);
    expect(res.json.message!.endsWith(after!), res.json.message).toBe(true);
    await expectNothingKept(started.deploy_id, Object.values(files).map(sha));
    const usage = await api(user.token, 'GET', '/api/projects/my');
    expect(usage.status).toBe(200);
    expect(usage.json.data.storage.used_bytes).toBe(0);
  });

  it('keeps nothing of a batch whose client goes away halfway', async () => {
    const user = await t.createUser();
    const files = {
      'index.html': unique('首页'),
      'big.txt': Buffer.alloc(4 * 1024 * 1024, `z${Math.random()}`),
    };
    const started = await start(user.token, files, '中途断开');
    const boundary = `----sitehall${Math.random().toString(16).slice(2)}`;
    const part = (hash: string) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${hash}"; filename="file"\r\n` +
      'Content-Type: application/octet-stream\r\n\r\n';
    const head = Buffer.concat([
      Buffer.from(part(sha(files['index.html']))),
      Buffer.from(files['index.html']),
      Buffer.from(`\r\n${part(sha(files['big.txt']))}`),
      files['big.txt'].subarray(0, 1024 * 1024),
    ]);
    const url = new URL(`${base}/api/deploys/${started.deploy_id}/files`);
    const request = http.request({
      host: url.hostname,
      port: url.port,
      path: url.pathname,
      method: 'POST',
      agent: false,
      headers: {
        authorization: `Bearer ${user.token}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(head.length + 4 * 1024 * 1024),
      },
    });
    request.on('error', () => undefined);
    request.write(head);
    // The server has taken the first file and is writing the second when the client goes.
    await expect
      .poll(async () => (await receivedBytes(started.deploy_id)) > 0, { timeout: 60_000 })
      .toBe(true);
    request.destroy();
    await expect.poll(() => receivedBytes(started.deploy_id), { timeout: 60_000 }).toBe(0);
    await expect.poll(() => staging(), { timeout: 60_000 }).toEqual([]);
    await expectNothingKept(started.deploy_id, Object.values(files).map(sha));
    // The deploy goes on: the same files again, whole, are taken.
    const again = await batch(
      user.token,
      started.deploy_id,
      Object.values(files).map((c) => [sha(c), c]),
    );
    expect(again.status, JSON.stringify(again.json)).toBe(200);
    const finished = await api(user.token, 'POST', `/api/deploys/${started.deploy_id}/finish`);
    expect(finished.status, JSON.stringify(finished.json)).toBe(201);
  });
});
