/**
 * Storage quota and upload rate per account (docs/decisions/uploads.md "Storage quota and upload rate"):
 * the two platform settings, an account's own quota, the used space in /api/projects/my and the
 * admin user list, 413 before the body and after extraction leaving nothing behind, the hourly
 * limit with Retry-After, and uploads at the same moment that can't pass the limits together.
 */
import net from 'node:net';
import path from 'node:path';
import {
  DEFAULT_UPLOADS_PER_HOUR,
  DEFAULT_USER_STORAGE_BYTES,
  format,
  formatBytes,
  MB,
  messages,
} from '@sitehall/contracts';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import {
  auditEntries,
  createTestApp,
  expectFailure,
  listenPort,
  listTree,
  makeZip,
  multipart,
  projectRowCounts,
  SIMPLE_SITE,
  type TestApp,
  uploadProject,
  usingPostgres,
} from './helpers.js';

const m = messages.project;
type User = Awaited<ReturnType<TestApp['createUser']>>;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const blobs = () => listTree(path.join(t.dataDir, 'blobs')).filter((f) => /[0-9a-f]{64}$/.test(f));
const staging = () => listTree(path.join(t.dataDir, 'staging'));
const uploadEvents = async () =>
  Number(
    (
      await t.ctx.db
        .selectFrom('upload_events')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

/** Everything an upload could leave behind: blobs, staging, rows, upload log entries. */
async function leftovers() {
  return {
    blobs: blobs(),
    staging: staging(),
    rows: await projectRowCounts(t),
    events: await uploadEvents(),
  };
}

async function setConfig(body: Record<string, unknown>) {
  const res = await t.request({ method: 'PUT', url: '/api/admin/config', token: await t.adminToken(), body });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
}

async function setQuota(userId: number, bytes: number | null) {
  return t.request({
    method: 'PATCH',
    url: `/api/admin/users/${userId}`,
    token: await t.adminToken(),
    body: { storage_quota_bytes: bytes },
  });
}

async function storageOf(user: User) {
  const res = await t.request({ url: '/api/projects/my', token: user.token });
  expect(res.statusCode).toBe(200);
  return res.json().data.storage as { used_bytes: number; quota_bytes: number };
}

async function adminRow(user: User) {
  const res = await t.request({
    url: `/api/admin/users?search=${user.username}`,
    token: await t.adminToken(),
  });
  return res.json().data.users.find((u: { id: number }) => u.id === user.id);
}

/** A zip that is small to send and `bytes` large once extracted (the bytes differ per `fill`). */
async function paddedZip(bytes: number, fill: string) {
  return makeZip({ 'index.html': `<!doctype html><title>${fill}</title>`, 'data.txt': fill.repeat(bytes) });
}

describe('settings', () => {
  it('has both settings in config and defaults, refuses bad values and audits a change', async () => {
    const got = (await t.request({ url: '/api/admin/config', token: await t.adminToken() })).json().data;
    for (const side of [got.config, got.defaults]) {
      expect(side).toMatchObject({
        max_user_storage_bytes: DEFAULT_USER_STORAGE_BYTES,
        max_uploads_per_hour: DEFAULT_UPLOADS_PER_HOUR,
      });
    }
    expect(DEFAULT_USER_STORAGE_BYTES).toBe(1024 ** 3);

    for (const [body, field] of [
      [{ max_user_storage_bytes: 1024 }, 'max_user_storage_bytes'],
      [{ max_user_storage_bytes: '1' }, 'max_user_storage_bytes'],
      [{ max_uploads_per_hour: -1 }, 'max_uploads_per_hour'],
      [{ max_uploads_per_hour: 1.5 }, 'max_uploads_per_hour'],
    ] as const) {
      const res = await t.request({
        method: 'PUT',
        url: '/api/admin/config',
        token: await t.adminToken(),
        body,
      });
      const failure = expectFailure(res, 400);
      expect(failure.errors?.[field]).toMatch(/必须是 \d+ 到 \d+ 之间的整数/);
    }

    const saved = await setConfig({ max_user_storage_bytes: 2 * 1024 ** 3, max_uploads_per_hour: 0 });
    expect(saved.config).toMatchObject({ max_user_storage_bytes: 2 * 1024 ** 3, max_uploads_per_hour: 0 });
    const [entry] = (await auditEntries(t, { action: 'config.update' })).slice(-1);
    expect(JSON.parse(entry!.detail!)).toEqual({
      max_user_storage_bytes: { from: DEFAULT_USER_STORAGE_BYTES, to: 2 * 1024 ** 3 },
      max_uploads_per_hour: { from: DEFAULT_UPLOADS_PER_HOUR, to: 0 },
    });
    // An account without its own quota has the platform's, at once.
    const user = await t.createUser();
    expect((await storageOf(user)).quota_bytes).toBe(2 * 1024 ** 3);
    await setConfig({
      max_user_storage_bytes: DEFAULT_USER_STORAGE_BYTES,
      max_uploads_per_hour: DEFAULT_UPLOADS_PER_HOUR,
    });
    expect((await storageOf(user)).quota_bytes).toBe(DEFAULT_USER_STORAGE_BYTES);
  });
});

describe("an account's own quota", () => {
  it('is set and cleared by an admin, shown in the list, refused when out of range, audited', async () => {
    const user = await t.createUser();
    expect(await adminRow(user)).toMatchObject({
      storage_used_bytes: 0,
      storage_quota_bytes: null,
      storage_limit_bytes: DEFAULT_USER_STORAGE_BYTES,
    });

    const set = await setQuota(user.id, 50 * MB);
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json().message).toBe(messages.auth.storageQuotaSaved);
    expect(await adminRow(user)).toMatchObject({
      storage_quota_bytes: 50 * MB,
      storage_limit_bytes: 50 * MB,
    });
    expect((await storageOf(user)).quota_bytes).toBe(50 * MB);

    const invalid = format(messages.auth.storageQuotaInvalid, {
      min: formatBytes(10 * MB),
      max: formatBytes(100 * 1024 ** 4),
    });
    for (const bad of [1024, -1, 1.5, '50', 101 * 1024 ** 4]) {
      const res = await setQuota(user.id, bad as number);
      expect(expectFailure(res, 400, invalid).errors?.storage_quota_bytes).toBe(invalid);
    }
    expect((await storageOf(user)).quota_bytes).toBe(50 * MB);

    expect((await setQuota(user.id, null)).statusCode).toBe(200);
    expect(await adminRow(user)).toMatchObject({
      storage_quota_bytes: null,
      storage_limit_bytes: DEFAULT_USER_STORAGE_BYTES,
    });
    const changes = await auditEntries(t, { action: 'user.quota_change', targetId: user.id });
    expect(changes.map((c) => JSON.parse(c.detail!))).toEqual([
      { storage_quota_bytes: { from: null, to: 50 * MB } },
      { storage_quota_bytes: { from: 50 * MB, to: null } },
    ]);
  });
});

describe('used space', () => {
  it('counts every version kept, whatever its status, in /api/projects/my and the admin list', async () => {
    const user = await t.createUser();
    const first = await uploadProject(t, user.token, { name: '空间统计', files: SIMPLE_SITE });
    expect(first.statusCode).toBe(201);
    const id = first.json().data.project.id as number;
    const v1 = SIMPLE_SITE.reduce((sum, f) => sum + Buffer.byteLength(f.content), 0);
    expect(await storageOf(user)).toEqual({ used_bytes: v1, quota_bytes: DEFAULT_USER_STORAGE_BYTES });

    // Version 2 supersedes the pending version 1, which is still kept: both count, each in full.
    const again = await uploadProject(t, user.token, { projectId: id, files: SIMPLE_SITE });
    expect(again.statusCode).toBe(200);
    const zip = await uploadProject(t, user.token, {
      name: '第二个',
      files: [{ name: 'site.zip', content: await paddedZip(100_000, 'u') }],
    });
    expect(zip.statusCode).toBe(201);
    const zipSize = 100_000 + Buffer.byteLength('<!doctype html><title>u</title>');
    const used = 2 * v1 + zipSize;
    expect((await storageOf(user)).used_bytes).toBe(used);
    expect((await adminRow(user)).storage_used_bytes).toBe(used);

    // Deleting a project gives its space back.
    await t.request({ method: 'DELETE', url: `/api/projects/${id}`, token: user.token });
    expect((await storageOf(user)).used_bytes).toBe(zipSize);
  });
});

describe('over the quota', () => {
  let user: User;
  beforeAll(async () => {
    user = await t.createUser();
    expect((await setQuota(user.id, 10 * MB)).statusCode).toBe(200);
    expect((await uploadProject(t, user.token, { name: '已有项目', files: SIMPLE_SITE })).statusCode).toBe(
      201,
    );
  });

  it('is refused from Content-Length before the body is sent, naming used space and limit', async () => {
    const before = await leftovers();
    const port = await listenPort(t);
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    // The whole answer: head and a JSON body (the connection may stay open for the unsent body).
    const answer = new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (c: Buffer) => {
        text += c.toString();
        const start = text.indexOf('\r\n\r\n');
        if (start >= 0 && text.endsWith('}')) resolve(text);
      });
    });
    // Headers only: 50 MB announced (under the 200 MB upload limit), not one byte of it sent.
    socket.write(
      `POST /api/projects/upload HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${user.token}\r\n` +
        `content-type: multipart/form-data; boundary=x\r\ncontent-length: ${50 * MB}\r\n\r\n`,
    );
    const text = await answer;
    socket.destroy();
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
    const used = SIMPLE_SITE.reduce((sum, f) => sum + Buffer.byteLength(f.content), 0);
    expect(body).toEqual({
      success: false,
      message: format(m.storageQuotaExceededDeclared, {
        used: formatBytes(used),
        quota: formatBytes(10 * MB),
        needed: formatBytes(50 * MB),
      }),
      errors: { files: expect.any(String) },
    });
    expect(await leftovers()).toEqual(before);
  });

  it('is refused after extraction when a small archive unpacks past it, leaving nothing behind', async () => {
    const before = await leftovers();
    const used = (await storageOf(user)).used_bytes;
    const zip = await paddedZip(12 * MB, 'z');
    expect(zip.length).toBeLessThan(MB);
    const needed = 12 * MB + Buffer.byteLength('<!doctype html><title>z</title>');
    const expected = format(m.storageQuotaExceeded, {
      used: formatBytes(used),
      quota: formatBytes(10 * MB),
      needed: formatBytes(needed),
    });
    const res = await uploadProject(t, user.token, {
      name: '太大了',
      files: [{ name: 'big.zip', content: zip }],
    });
    expectFailure(res, 413, expected);

    // A new version is held to the same quota.
    const id = (await t.request({ url: '/api/projects/my', token: user.token })).json().data.projects[0].id;
    const version = await uploadProject(t, user.token, {
      projectId: id,
      files: [{ name: 'big.zip', content: zip }],
    });
    expectFailure(version, 413, expected);
    expect(await leftovers()).toEqual(before);

    // An upload that fits still goes through.
    const fits = await uploadProject(t, user.token, {
      name: '刚好放得下',
      files: [{ name: 'ok.zip', content: await paddedZip(5 * MB, 'y') }],
    });
    expect(fits.statusCode).toBe(201);
  });

  it('lets two uploads at the same moment pass together only if both fit', async () => {
    const racer = await t.createUser();
    expect((await setQuota(racer.id, 10 * MB)).statusCode).toBe(200);
    const before = await leftovers();
    // Each fits alone (6 MB of 10), not both; every one passes the checks before storing, so
    // only the commit's check, one account at a time, can refuse the late ones.
    const zips = await Promise.all(['a', 'b', 'c'].map((fill) => paddedZip(6 * MB, fill)));
    const answers = await Promise.all(
      zips.map((zip, i) =>
        uploadProject(t, racer.token, { name: `并发${i}`, files: [{ name: 'site.zip', content: zip }] }),
      ),
    );
    const statuses = answers.map((r) => r.statusCode).sort();
    expect(statuses).toEqual([201, 413, 413]);
    for (const r of answers.filter((a) => a.statusCode === 413)) {
      expect(r.json().message).toMatch(/^存储空间不足：已使用 6 MB，上限 10 MB/);
    }
    expect((await storageOf(racer)).used_bytes).toBeLessThanOrEqual(10 * MB);
    const after = await leftovers();
    // The winner's two files and nothing of the others.
    expect(after.blobs.filter((b) => !before.blobs.includes(b))).toHaveLength(2);
    expect(after.staging).toEqual([]);
    expect(after.rows.deployments).toBe(before.rows.deployments + 1);
  });
});

describe('two instances on one database', () => {
  /**
   * On PostgreSQL, holds inserts into projects until both uploads' commits are inside their
   * transactions: each one either checked its quota and waits to insert, or waits for the other's
   * hold on the account. Without that hold both would check before either inserts, and both pass.
   */
  async function holdingInserts<T>(work: () => Promise<T>): Promise<T> {
    if (!usingPostgres || t.config.database.kind !== 'postgres') return work();
    const table = `${t.config.database.schema}.projects`;
    const client = new pg.Client({ connectionString: t.config.database.url });
    await client.connect();
    try {
      await client.query('begin');
      await client.query(`lock table ${table} in exclusive mode`);
      const running = work();
      const waiting = async () =>
        Number(
          (
            await client.query(
              `select count(*) as n from pg_locks w where not w.granted and (w.relation = $1::regclass or
                 (w.locktype = 'transactionid' and w.transactionid in (
                   select transactionid from pg_locks where locktype = 'transactionid' and granted and pid in (
                     select pid from pg_locks where relation = $1::regclass and not granted))))`,
              [table],
            )
          ).rows[0].n,
        );
      for (let i = 0; i < 300 && (await waiting()) < 2; i++) await new Promise((r) => setTimeout(r, 50));
      expect(await waiting()).toBe(2);
      await client.query('commit');
      return await running;
    } finally {
      await client.end();
    }
  }

  it('does not let uploads through different instances pass the quota together', async () => {
    const second = await buildApp(t.config, { logger: false });
    try {
      const user = await t.createUser();
      expect((await setQuota(user.id, 10 * MB)).statusCode).toBe(200);
      const before = await leftovers();
      const [a, b] = await Promise.all(['m', 'n'].map((fill) => paddedZip(6 * MB, fill)));
      const bodyOf = async (zip: Buffer, name: string) => {
        const { payload, headers } = await multipart({ project_name: name }, [
          { name: 'site.zip', content: zip },
        ]);
        return { payload, headers: { ...headers, authorization: `Bearer ${user.token}` } };
      };
      const [one, two] = await Promise.all([bodyOf(a!, '实例一'), bodyOf(b!, '实例二')]);
      const answers = await holdingInserts(() =>
        Promise.all([
          t.request({ method: 'POST', url: '/api/projects/upload', ...one }),
          second.app.inject({ method: 'POST', url: '/api/projects/upload', ...two }),
        ]),
      );
      expect(answers.map((r) => r.statusCode).sort()).toEqual([201, 413]);
      expect((await storageOf(user)).used_bytes).toBeLessThanOrEqual(10 * MB);
      const after = await leftovers();
      expect(after.rows.deployments).toBe(before.rows.deployments + 1);
      expect(after.blobs.filter((h) => !before.blobs.includes(h))).toHaveLength(2);
      expect(after.staging).toEqual([]);
    } finally {
      await second.app.close();
    }
  });
});

describe('uploads per hour', () => {
  afterAll(() => setConfig({ max_uploads_per_hour: DEFAULT_UPLOADS_PER_HOUR }));

  it('refuses the upload over the limit with 429 and Retry-After; new versions count too', async () => {
    await setConfig({ max_uploads_per_hour: 2 });
    const user = await t.createUser();
    const first = await uploadProject(t, user.token, { name: '第一次', files: SIMPLE_SITE });
    expect(first.statusCode).toBe(201);
    const id = first.json().data.project.id as number;
    expect((await uploadProject(t, user.token, { projectId: id, files: SIMPLE_SITE })).statusCode).toBe(200);

    const before = await leftovers();
    const third = await uploadProject(t, user.token, { name: '第三次', files: SIMPLE_SITE });
    expectFailure(third, 429, format(m.uploadsPerHourExceeded, { n: 2, minutes: 60 }));
    const retry = Number(third.headers['retry-after']);
    expect(retry).toBeGreaterThan(3000);
    expect(retry).toBeLessThanOrEqual(3600);
    const version = await uploadProject(t, user.token, { projectId: id, files: SIMPLE_SITE });
    expect(version.statusCode).toBe(429);
    expect(await leftovers()).toEqual(before);

    // Deleting what was uploaded gives no upload back.
    await t.request({ method: 'DELETE', url: `/api/projects/${id}`, token: user.token });
    expect((await uploadProject(t, user.token, { name: '删除之后', files: SIMPLE_SITE })).statusCode).toBe(
      429,
    );

    // An hour later (the log is the database's, shared by every instance) the account may upload.
    const earlier = new Date(Date.now() - 61 * 60_000).toISOString();
    await t.ctx.db
      .updateTable('upload_events')
      .set({ created_at: earlier })
      .where('user_id', '=', user.id)
      .execute();
    expect((await uploadProject(t, user.token, { name: '一小时后', files: SIMPLE_SITE })).statusCode).toBe(
      201,
    );
    // Old entries are forgotten as the account uploads.
    const rows = await t.ctx.db
      .selectFrom('upload_events')
      .selectAll()
      .where('user_id', '=', user.id)
      .execute();
    expect(rows).toHaveLength(1);
  });

  it('does not apply to admins, and 0 means no limit', async () => {
    await setConfig({ max_uploads_per_hour: 1 });
    const admin = await t.adminToken();
    for (let i = 0; i < 3; i++) {
      expect((await uploadProject(t, admin, { name: `管理员${i}`, files: SIMPLE_SITE })).statusCode).toBe(
        201,
      );
    }
    await setConfig({ max_uploads_per_hour: 0 });
    const user = await t.createUser();
    for (let i = 0; i < 3; i++) {
      expect((await uploadProject(t, user.token, { name: `不限${i}`, files: SIMPLE_SITE })).statusCode).toBe(
        201,
      );
    }
  });

  it('lets only one of two uploads at the same moment take the last place', async () => {
    await setConfig({ max_uploads_per_hour: 1 });
    const user = await t.createUser();
    const before = await leftovers();
    const answers = await Promise.all(
      ['甲项目', '乙项目'].map((name) =>
        uploadProject(t, user.token, {
          name,
          files: [{ name: 'index.html', content: `<!doctype html><title>${name}</title>` }],
        }),
      ),
    );
    expect(answers.map((r) => r.statusCode).sort()).toEqual([201, 429]);
    const after = await leftovers();
    expect(after.rows.deployments).toBe(before.rows.deployments + 1);
    expect(after.blobs.filter((b) => !before.blobs.includes(b))).toHaveLength(1);
    expect(after.staging).toEqual([]);
  });
});
