/**
 * A lease released while PostgreSQL goes away (docs/decisions/faults.md "Failed lease releases are
 * retried"). The release's DELETE is held on the server (a trigger waits for an advisory lock the
 * test holds) until the proxy is cut and its backend terminated, so it fails for real after the
 * rows were committed. The lease is then released once the database is back, by the instance
 * itself, not an hour later by the sweep; a digest deploy's finish still answers with its version.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { SIMPLE_SITE, uploadProject, usingPostgres } from '../helpers.js';
import { direct, eventually, type FaultApp, faultApp, PG_URL } from './support.js';

const opened: Array<{ close(): Promise<unknown> }> = [];
afterEach(async () => {
  for (const f of opened.splice(0).reverse()) await f.close();
});

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

/** Makes the next DELETE of lease rows wait on the server until `fail` ends it. */
async function holdRelease(f: FaultApp) {
  const key = Math.floor(Math.random() * 2 ** 31);
  const holder = new pg.Client({ connectionString: PG_URL });
  holder.on('error', () => {});
  await holder.connect();
  await holder.query('select pg_advisory_lock($1)', [key]);
  await direct(f.schema, async (c) => {
    await c.query(`create function hold_release() returns trigger language plpgsql as $$
      begin perform pg_advisory_lock(${key}); perform pg_advisory_unlock(${key}); return old; end $$`);
    await c.query(`create trigger hold_release before delete on blob_leases
      for each row execute function hold_release()`);
  });
  /** The app's backend waiting in the trigger, once it is. */
  const waiting = () =>
    direct('public', async (c) => {
      const r = await c.query(
        `select pid from pg_stat_activity where application_name = $1 and wait_event = 'advisory'`,
        [f.applicationName],
      );
      return (r.rows[0]?.pid as number | undefined) ?? null;
    });
  return {
    /** Once the release waits: the database goes away under it (cut, its backend ended). */
    async fail(): Promise<void> {
      await eventually(async () => (await waiting()) !== null, 30_000, 'the release waiting');
      const pid = await waiting();
      f.proxy.cut();
      await direct('public', (c) => c.query('select pg_terminate_backend($1)', [pid]));
      await direct(f.schema, async (c) => {
        await c.query('drop trigger hold_release on blob_leases');
        await c.query('drop function hold_release()');
      });
      await holder.end();
    },
  };
}

const leaseRows = (f: FaultApp) =>
  direct(f.schema, async (c) => Number((await c.query('select count(*) as n from blob_leases')).rows[0].n));
const versions = (f: FaultApp) =>
  direct(f.schema, async (c) => Number((await c.query('select count(*) as n from deployments')).rows[0].n));

describe.skipIf(!usingPostgres)('lease releases while PostgreSQL is away', () => {
  async function open(): Promise<FaultApp> {
    const f = await faultApp();
    opened.push(f);
    return f;
  }

  /** While cut, the lease stays and the instance remembers it; back, it is released. */
  async function releasedOnceBack(f: FaultApp) {
    const { gate } = f.t.ctx.cluster;
    await eventually(async () => gate.unreleased > 0, 10_000, 'the failed release remembered');
    expect(await leaseRows(f)).toBeGreaterThan(0);
    f.proxy.restore();
    // No sweep runs here (and it would keep a live instance's leases for an hour).
    await eventually(
      async () => (await leaseRows(f)) === 0 && gate.unreleased === 0,
      30_000,
      'lease released',
    );
  }

  it('an upload committed before the cut: its lease is released when the database is back', async () => {
    const f = await open();
    const owner = await f.t.createUser();
    const hold = await holdRelease(f);
    const upload = uploadProject(f.t, owner.token, { name: '租约', files: SIMPLE_SITE });
    await hold.fail();
    const res = await upload;
    // Committed: its answer is the project (201), or 503 when the detail could not be read.
    expect([201, 503], res.body).toContain(res.statusCode);
    await releasedOnceBack(f);
    expect(await versions(f)).toBe(1);
  });

  it('a digest deploy finished before the cut answers with its version; its leases are released once back', async () => {
    const f = await open();
    const owner = await f.t.createUser();
    const files = { 'index.html': '<!doctype html><h1>租约</h1>', 'a.css': 'body{color:red}' };
    const manifest = Object.fromEntries(Object.entries(files).map(([p, c]) => [p, sha(c)]));
    const started = await f.t.request({
      method: 'POST',
      url: '/api/deploys',
      token: owner.token,
      body: { project_name: '租约部署', files: manifest },
    });
    expect(started.statusCode, started.body).toBe(201);
    const { deploy_id, required } = started.json().data as { deploy_id: string; required: string[] };
    for (const content of Object.values(files)) {
      if (!required.includes(sha(content))) continue;
      const put = await f.t.request({
        method: 'PUT',
        url: `/api/deploys/${deploy_id}/files/${sha(content)}`,
        token: owner.token,
        payload: Buffer.from(content),
        headers: { 'content-type': 'application/octet-stream' },
      });
      expect(put.statusCode, put.body).toBe(200);
    }
    const hold = await holdRelease(f);
    const finish = f.t.request({
      method: 'POST',
      url: `/api/deploys/${deploy_id}/finish`,
      token: owner.token,
    });
    await hold.fail();
    const res = await finish;
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json().data.project.name).toBe('租约部署');
    await releasedOnceBack(f);
    expect(await versions(f)).toBe(1);
  });
});
