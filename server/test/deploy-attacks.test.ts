/**
 * Digest deploys under a hostile account (docs/security.md "Digest deploys"): unfinished deploys
 * can't take more disk than the quota, nor hide what they hold from it; starts are capped and
 * rated; an idle deploy ends within minutes; dedupe never crosses accounts, so a content's hash
 * neither tells whether someone else holds it nor lets anyone deploy it without its bytes; file
 * PUTs count per address.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import {
  DEPLOY_IDLE_MS,
  DEPLOY_MAX_AGE_MS,
  DEPLOY_STARTS_MAX,
  DEPLOY_STARTS_WINDOW_MS,
  DEPLOY_TRANSFERS_IN_FLIGHT_MAX,
  format,
  messages,
  OPEN_DEPLOYS_MAX,
} from '@sitehall/contracts';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../src/domain/actor.js';
import { mapLimit } from '../src/domain/concurrency.js';
import { Invalid, TooLarge } from '../src/domain/errors.js';
import { sweepLeftovers } from '../src/jobs/sweep.js';
import { createDeploysRepository } from '../src/repositories/deploys.js';
import { createProjectsRepository } from '../src/repositories/projects.js';
import {
  createTestApp,
  expectFailure,
  listTree,
  SIMPLE_SITE,
  type TestApp,
  uploadProject,
  usingPostgres,
} from './helpers.js';
import { deployServiceBeside } from './support/deploy-instance.js';

const m = messages.deploy;
const MB = 1024 * 1024;
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const sha = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');

const start = (token: string, body: Record<string, unknown>) =>
  t.request({ method: 'POST', url: '/api/deploys', token, body });

const put = (token: string, deployId: string, hash: string, content: string | Buffer, ip?: string) =>
  t.request({
    method: 'PUT',
    url: `/api/deploys/${deployId}/files/${hash}`,
    token,
    payload: typeof content === 'string' ? Buffer.from(content) : content,
    headers: { 'content-type': 'application/octet-stream' },
    ...(ip ? { ip } : {}),
  });

const finish = (token: string, deployId: string) =>
  t.request({ method: 'POST', url: `/api/deploys/${deployId}/finish`, token });

/** Bytes of the files under a folder (what staging and the blob store take on disk). */
function bytesUnder(dir: string): number {
  let total = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += fs.statSync(path.join(entry.parentPath, entry.name)).size;
  }
  return total;
}
const diskBytes = () =>
  ['staging', 'blobs'].reduce((sum, d) => {
    const dir = path.join(t.dataDir, d);
    return sum + (fs.existsSync(dir) ? bytesUnder(dir) : 0);
  }, 0);

async function usedBytes(user: { id: number; username: string; token: string }) {
  const mine = await t.request({ url: '/api/projects/my', token: user.token });
  const list = await t.request({
    url: `/api/admin/users?search=${user.username}`,
    token: await t.adminToken(),
  });
  const row = (list.json().data.users as { id: number; storage_used_bytes: number }[]).find(
    (u) => u.id === user.id,
  );
  return { mine: mine.json().data.storage.used_bytes as number, admin: row?.storage_used_bytes };
}

const actorOf = (user: { id: number; username: string }): Actor => ({
  id: user.id,
  username: user.username,
  role: 'user',
  via: 'token',
  sessionId: 0,
});

/** A second deploy service over the same database and store: another instance, or a restart. */
const otherInstance = () => deployServiceBeside(t);

const sweep = () =>
  sweepLeftovers({
    db: t.ctx.db,
    ...t.ctx.cluster,
    store: t.ctx.store,
    dataDir: t.dataDir,
    expireDeploys: () => t.ctx.services.deploys.expire(),
  });

/** Moves a deploy's expiry into the past (rather than waiting for it). */
async function expireNow(deployId: string) {
  const past = new Date(Date.now() - 1000).toISOString();
  await t.ctx.db.updateTable('deploys').set({ expires_at: past }).where('id', '=', deployId).execute();
}

describe('unfinished deploys and the quota', () => {
  it('holds what they take against the quota, caps and rates starts, and gives it all back at expiry', async () => {
    const user = await t.createUser();
    const quota = 10 * MB;
    const set = await t.request({
      method: 'PATCH',
      url: `/api/admin/users/${user.id}`,
      token: await t.adminToken(),
      body: { storage_quota_bytes: quota },
    });
    expect(set.statusCode, set.body).toBe(200);
    const before = diskBytes();

    // The attack: as many deploys as the server lets it open, two 8 MB files in each, never finished.
    const deploys: { id: string; files: Buffer[] }[] = [];
    for (let i = 0; i < OPEN_DEPLOYS_MAX; i++) {
      const files = [randomBytes(8 * MB), randomBytes(8 * MB)];
      const res = await start(user.token, {
        project_name: `占满磁盘 ${i}`,
        files: { 'a.bin': sha(files[0]!), 'b.bin': sha(files[1]!), 'index.html': sha('<p>x</p>') },
      });
      expect(res.statusCode, res.body).toBe(201);
      deploys.push({ id: res.json().data.deploy_id, files });
    }
    let starts = OPEN_DEPLOYS_MAX;
    // One more is refused while those are open, with when the first of them ends.
    const extra = await start(user.token, { project_name: '再开一个', files: { 'a.bin': sha('x') } });
    starts++;
    expectFailure(extra, 429);
    expect(extra.json().message).toBe(
      format(m.tooManyOpenDeploys, { n: OPEN_DEPLOYS_MAX, minutes: DEPLOY_IDLE_MS / 60_000 }),
    );
    expect(Number(extra.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(extra.headers['retry-after'])).toBeLessThanOrEqual(DEPLOY_IDLE_MS / 1000);

    // Every PUT at once (as many as an account may have under way): exactly one 8 MB file fits in
    // 10 MB; the rest are 413 and leave nothing.
    const results = await mapLimit(
      deploys.flatMap((d) => d.files.map((f) => ({ d, f }))),
      DEPLOY_TRANSFERS_IN_FLIGHT_MAX,
      ({ d, f }) => put(user.token, d.id, sha(f), f),
    );
    const accepted = results.filter((r) => r.statusCode === 200);
    expect(accepted).toHaveLength(1);
    for (const r of results.filter((x) => x.statusCode !== 200)) {
      expectFailure(r, 413);
      expect(r.json().message).toMatch(/^存储空间不足：已使用 8 MB，上限 10 MB/);
    }
    expect(diskBytes() - before).toBeLessThanOrEqual(quota);
    expect(diskBytes() - before).toBeGreaterThanOrEqual(8 * MB);
    expect(listTree(path.join(t.dataDir, 'staging'))).toEqual([]);

    // What the deploys hold is the account's usage, wherever it is shown and checked.
    expect(await usedBytes(user)).toEqual({ mine: 8 * MB, admin: 8 * MB });
    const upload = await uploadProject(t, user.token, {
      name: '普通上传',
      files: [{ name: 'index.html', content: `<p>${'x'.repeat(3 * MB)}</p>` }],
    });
    expectFailure(upload, 413);
    expect(upload.json().message).toMatch(/^存储空间不足：已使用 8 MB/);
    // A file sent without a length is held step by step, and refused the same way.
    const actor = actorOf(user);
    const chunked = deploys[1]!;
    await expect(
      t.ctx.services.deploys.receiveFile(
        actor,
        chunked.id,
        sha(chunked.files[1]!),
        Readable.from([chunked.files[1]!.subarray(0, MB), chunked.files[1]!.subarray(MB)]),
      ),
    ).rejects.toBeInstanceOf(TooLarge);
    expect(await usedBytes(user)).toEqual({ mine: 8 * MB, admin: 8 * MB });
    expect(diskBytes() - before).toBeLessThanOrEqual(quota);

    // Starts count at their own rate, refused ones too.
    let rated: Awaited<ReturnType<typeof start>> | undefined;
    while (starts < DEPLOY_STARTS_MAX + 1) {
      rated = await start(user.token, { project_name: '频繁开始', files: { 'a.bin': sha('x') } });
      starts++;
    }
    expectFailure(rated!, 429);
    expect(rated!.json().message).toBe(
      format(m.deployStartsExceeded, {
        n: DEPLOY_STARTS_MAX,
        window: DEPLOY_STARTS_WINDOW_MS / 60_000,
        minutes: DEPLOY_STARTS_WINDOW_MS / 60_000,
      }),
    );
    const retryAfter = Number(rated!.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(DEPLOY_STARTS_WINDOW_MS / 1000);
    // Another account is not slowed by it.
    const other = await t.createUser();
    expect(
      (await start(other.token, { project_name: '别人', files: { 'a.bin': sha('y') } })).statusCode,
    ).toBe(201);

    // Idle past their time: the sweep removes them and what they took; the usage is back to 0.
    for (const d of deploys) await expireNow(d.id);
    const swept = await sweep();
    expect(swept.deploysExpired).toBe(OPEN_DEPLOYS_MAX);
    expect(diskBytes()).toBeLessThanOrEqual(before);
    expect(await usedBytes(user)).toEqual({ mine: 0, admin: 0 });
  });

  it('lets exactly OPEN_DEPLOYS_MAX of many parallel starts open, on two instances at once', async () => {
    const user = await t.createUser();
    const second = otherInstance();
    const n = 3 * OPEN_DEPLOYS_MAX;
    const body = (i: number) => ({
      project_name: `并发开始 ${i}`,
      files: { 'index.html': sha(`<p>${i}</p>`) },
    });
    // Half over HTTP, half through a second instance's service on the same database.
    const outcomes = await Promise.all(
      Array.from({ length: n }, async (_, i) => {
        if (i % 2 === 0) {
          const res = await start(user.token, body(i));
          if (res.statusCode !== 201) expectFailure(res, 429);
          return res.statusCode === 201 ? 'opened' : res.json().message;
        }
        return second.start(actorOf(user), body(i)).then(
          () => 'opened',
          (e: Error) => e.message,
        );
      }),
    );
    expect(outcomes.filter((o) => o === 'opened')).toHaveLength(OPEN_DEPLOYS_MAX);
    for (const refused of outcomes.filter((o) => o !== 'opened')) {
      expect(refused).toMatch(/^未完成的部署已有 5 个/);
    }
    const rows = await t.ctx.db.selectFrom('deploys').select('id').where('user_id', '=', user.id).execute();
    expect(rows).toHaveLength(OPEN_DEPLOYS_MAX);
    // The refused ones hold no lease: only the open deploys lease their pages.
    const leased = await t.ctx.db
      .selectFrom('blob_leases')
      .select('upload_id')
      .where(
        'sha256',
        'in',
        Array.from({ length: n }, (_, i) => sha(`<p>${i}</p>`)),
      )
      .execute();
    expect(leased.map((l) => l.upload_id).sort()).toEqual(rows.map((r) => `deploy:${r.id}`).sort());
  });

  it('expires an idle deploy within minutes; files it receives keep it open, up to its maximum age', async () => {
    const user = await t.createUser();
    const files = { 'index.html': `<p>${Math.random()}</p>`, 'b.css': `p{width:${Math.random()}px}` };
    const begun = Date.now();
    const res = await start(user.token, {
      project_name: '闲置',
      files: { 'index.html': sha(files['index.html']), 'b.css': sha(files['b.css']) },
    });
    const { deploy_id } = res.json().data;
    const expiry = async () =>
      Date.parse(
        (
          await t.ctx.db
            .selectFrom('deploys')
            .select('expires_at')
            .where('id', '=', deploy_id)
            .executeTakeFirstOrThrow()
        ).expires_at,
      );
    expect(await expiry()).toBeGreaterThanOrEqual(begun + DEPLOY_IDLE_MS);
    expect(await expiry()).toBeLessThanOrEqual(Date.now() + DEPLOY_IDLE_MS);

    // Begun 40 minutes ago and still sending: a PUT moves its end, but not past 45 minutes.
    const longAgo = new Date(Date.now() - 40 * 60_000).toISOString();
    const soon = new Date(Date.now() + 60_000).toISOString();
    await t.ctx.db
      .updateTable('deploys')
      .set({ created_at: longAgo, expires_at: soon })
      .where('id', '=', deploy_id)
      .execute();
    expect((await put(user.token, deploy_id, sha(files['b.css']), files['b.css'])).statusCode).toBe(200);
    expect(await expiry()).toBe(Date.parse(longAgo) + DEPLOY_MAX_AGE_MS);

    await expireNow(deploy_id);
    expectFailure(await put(user.token, deploy_id, sha(files['index.html']), files['index.html']), 404);
    expect((await sweep()).deploysExpired).toBe(1);
    expect(await t.ctx.store.stat(sha(files['b.css']))).toBeNull();
  });

  it('keeps nothing of a file whose deploy expired while it was being sent', async () => {
    const user = await t.createUser();
    const content = Buffer.from(`<p>${Math.random()}</p>`.repeat(100));
    const res = await start(user.token, {
      project_name: '发送中过期',
      files: { 'index.html': sha(content) },
    });
    const { deploy_id } = res.json().data;
    let expired: Promise<number> | undefined;
    async function* body() {
      yield content.subarray(0, 100);
      // The sweep ends the deploy between two chunks.
      expired = expireNow(deploy_id).then(() => t.ctx.services.deploys.expire());
      await expired;
      yield content.subarray(100);
    }
    // With its length declared, the bytes are held before the first one is read.
    await expect(
      t.ctx.services.deploys.receiveFile(
        actorOf(user),
        deploy_id,
        sha(content),
        Readable.from(body()),
        content.length,
      ),
    ).rejects.toThrow(m.deployNotFound);
    expect(await expired).toBe(1);
    expect(await t.ctx.store.stat(sha(content))).toBeNull();
    const leases = await t.ctx.db
      .selectFrom('blob_leases')
      .select('upload_id')
      .where('upload_id', 'like', `deploy:${deploy_id}%`)
      .execute();
    expect(leases).toEqual([]);
    expect(listTree(path.join(t.dataDir, 'staging'))).toEqual([]);
  });
});

describe('dedupe never crosses accounts', () => {
  it('lists another account’s content as required, and finish refuses it unsent', async () => {
    // Bob's private, pending project holds a secret.
    const bob = await t.createUser();
    const secret = `{"api_key": "pin-${Math.floor(Math.random() * 1e9)}"}`;
    const uploaded = await uploadProject(t, bob.token, {
      name: '私密项目',
      files: [
        { name: 'index.html', content: '<!doctype html><p>bob</p>' },
        { name: 'config.json', content: secret },
      ],
    });
    expect(uploaded.statusCode, uploaded.body).toBe(201);
    expect(await t.ctx.store.stat(sha(secret))).not.toBeNull();

    // Alice probes with candidate contents: every one is required, Bob's too (she learns nothing).
    const alice = await t.createUser();
    const candidates = Array.from({ length: 15 }, (_, i) => `{"api_key": "pin-${i}"}`);
    candidates.push(secret);
    const manifest = Object.fromEntries(candidates.map((c, i) => [`c${i}.json`, sha(c)]));
    const probe = await start(alice.token, {
      project_name: '探测',
      files: { ...manifest, 'index.html': sha('<p>a</p>') },
    });
    expect(probe.statusCode, probe.body).toBe(201);
    const required = probe.json().data.required as string[];
    expect(required).toContain(sha(secret));
    expect(required).toHaveLength(candidates.length + 1);

    // The theft: a deploy naming Bob's content by its hash, finished without its bytes.
    const theft = await start(alice.token, {
      project_name: '偷取',
      files: { 'index.html': sha('<p>a</p>'), 'config.json': sha(secret) },
    });
    const { deploy_id } = theft.json().data;
    expect((await put(alice.token, deploy_id, sha('<p>a</p>'), '<p>a</p>')).statusCode).toBe(200);
    expectFailure(await finish(alice.token, deploy_id), 400, format(m.filesMissing, { n: 1 }));
    // Nor through another instance, which knows nothing of the deploy but its row.
    const elsewhere = await otherInstance()
      .finish(actorOf(alice), deploy_id, { ip: '127.0.0.1' })
      .catch((err: unknown) => err);
    expect(elsewhere).toBeInstanceOf(Invalid);
    expect((elsewhere as Error).message).toBe(format(m.filesMissing, { n: 1 }));
    // Other bytes under its hash are refused.
    expectFailure(await put(alice.token, deploy_id, sha(secret), '{"api_key": "guess"}'), 400);
    const aliceProjects = await t.ctx.db
      .selectFrom('projects')
      .select('id')
      .where('owner_id', '=', alice.id)
      .execute();
    expect(aliceProjects).toEqual([]);

    // Sending the bytes herself (she has the content after all) is an ordinary deploy.
    expect((await put(alice.token, deploy_id, sha(secret), secret)).statusCode).toBe(200);
    const done = await finish(alice.token, deploy_id);
    expect(done.statusCode, done.body).toBe(201);
    // Bob's own redeploy of contents he holds (one more copy: an unchanged one would open nothing)
    // still sends nothing, and finishes on any instance.
    const again = await start(bob.token, {
      project_id: uploaded.json().data.project.id,
      files: {
        'index.html': sha('<!doctype html><p>bob</p>'),
        'config.json': sha(secret),
        'copy.json': sha(secret),
      },
    });
    expect(again.json().data.required).toEqual([]);
    const redeployed = await otherInstance().finish(actorOf(bob), again.json().data.deploy_id, {
      ip: '127.0.0.1',
    });
    expect(redeployed.latest?.version).toBe(2);
  });
});

describe('file PUTs and the per-address rate limit', () => {
  it('counts file PUTs per address, whatever the deploy', async () => {
    const small = await createTestApp({ deployPutsPerMinute: 3 });
    try {
      const user = await small.createUser();
      const send = (id: string, ip: string) =>
        small.request({
          method: 'PUT',
          url: `/api/deploys/${id}/files/${sha('x')}`,
          token: user.token,
          payload: Buffer.from('x'),
          headers: { 'content-type': 'application/octet-stream' },
          ip,
        });
      // Three deploys (or none: unknown ids count the same) from one address...
      for (const id of ['one', 'two', 'three']) expectFailure(await send(id, '10.9.0.1'), 404);
      const refused = await send('four', '10.9.0.1');
      expectFailure(refused, 429, messages.common.tooManyRequests);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      // ...while another address still gets through.
      expectFailure(await send('four', '10.9.0.2'), 404, m.deployNotFound);
    } finally {
      await small.close();
    }
  });
});

describe('row locks of a deploy start', () => {
  // Seen in bench:chaos (2026-11-30): a start held its account's row FOR UPDATE and, inserting the
  // deploy, waited for the project's row (the foreign key's FOR KEY SHARE) that a decision on the
  // project held; the decision then wrote the owner a notification (FOR KEY SHARE on the user's
  // row) and waited for the start: PostgreSQL ended one with "deadlock detected", a 500.
  it.skipIf(!usingPostgres)(
    'and a decision on the project writing its owner a notice both go through',
    async () => {
      const owner = await t.createUser();
      const project = (await uploadProject(t, owner.token, { files: SIMPLE_SITE })).json().data.project as {
        id: number;
        name: string;
      };
      const db = t.ctx.db;
      const projects = createProjectsRepository('postgres');
      let decided!: () => void;
      const holding = new Promise<void>((resolve) => {
        decided = resolve;
      });
      let release!: () => void;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let decisionPid = 0;
      const decision = db.transaction().execute(async (trx) => {
        expect(await projects.byIdForChange(trx, project.id)).toBeDefined();
        const { rows } = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(trx);
        decisionPid = rows[0]!.pid;
        decided();
        await released;
        await trx
          .insertInto('notifications')
          .values({
            user_id: owner.id,
            kind: 'approved',
            project_id: project.id,
            project_name: project.name,
            version: 1,
            reason: null,
            created_at: new Date().toISOString(),
          })
          .execute();
      });
      await holding;
      const at = new Date().toISOString();
      const started = createDeploysRepository('postgres').insertWithinCap(
        db,
        {
          id: randomBytes(18).toString('base64url'),
          user_id: owner.id,
          project_id: project.id,
          project_name: null,
          description: null,
          site_name: null,
          manifest: '{}',
          received_bytes: 0,
          created_at: at,
          expires_at: new Date(Date.parse(at) + 60_000).toISOString(),
        },
        5,
      );
      // The start has gone as far as it can while the decision holds the project's row: done, or
      // waiting for a lock the decision holds (PostgreSQL's view of who blocks whom: only this
      // test's start can wait on this test's decision, whatever other tests run beside it).
      let settled = false;
      const done = () => {
        settled = true;
      };
      started.then(done, done);
      const waiting = async () => {
        const { rows } = await sql<{ n: number }>`
          select count(*)::int as n from pg_stat_activity
          where ${decisionPid}::int = any(pg_blocking_pids(pid))`.execute(db);
        return rows[0]!.n > 0;
      };
      await expect.poll(async () => settled || (await waiting())).toBe(true);
      release();
      const [decisionOutcome, startOutcome] = await Promise.allSettled([decision, started]);
      expect(decisionOutcome).toEqual({ status: 'fulfilled', value: undefined });
      expect(startOutcome).toEqual({ status: 'fulfilled', value: null });
    },
  );
});
