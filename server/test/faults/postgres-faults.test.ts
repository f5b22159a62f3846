/**
 * PostgreSQL faults through a proxy the test controls (docs/decisions/faults.md "Database outages"): the
 * server refusing connections (cut), going silent (blackhole), and terminating its backends
 * (57P01), also under a request in the middle of a transaction. Each test asserts that the process
 * lives on, that requests needing the database get 503 with Retry-After within 2 s while cached
 * sites are still served, that it recovers without a restart, and that nothing acknowledged is lost.
 */
import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DatabaseUnavailable, GuardedPool } from '../../src/db/postgres-pool.js';
import { liveProject, SIMPLE_SITE, uploadProject, usingPostgres } from '../helpers.js';
import {
  BROWSER_UA,
  direct,
  eventually,
  expectUnavailable,
  expectUnavailablePage,
  type FaultApp,
  faultApp,
  PG_URL,
  terminateBackends,
  timed,
} from './support.js';

/** Closed in reverse: a test's row lock goes before its schema is dropped. */
const opened: Array<{ close(): Promise<unknown> }> = [];
afterEach(async () => {
  vi.restoreAllMocks();
  for (const f of opened.splice(0).reverse()) await f.close();
});

async function open(): Promise<FaultApp> {
  const f = await faultApp();
  opened.push(f);
  return f;
}

/** A request that needs the database: the signed-in user's own projects. */
const mine = (f: FaultApp, token: string) =>
  timed(f.port, '/api/projects/my', { headers: { authorization: `Bearer ${token}` } });

const viewCount = async (f: FaultApp, id: number) =>
  direct(f.schema, async (c) =>
    Number((await c.query('select view_count from projects where id = $1', [id])).rows[0].view_count),
  );

/** A site page, as a browser asks for it (counted as a view). */
/** A page view by a new visitor each time (a visitor's views count once per 30 minutes). */
let visits = 0;
const page = (f: FaultApp, id: number) =>
  timed(f.port, `/sites/${id}/`, { headers: { 'user-agent': `${BROWSER_UA} visit/${++visits}` } });

describe.skipIf(!usingPostgres)('PostgreSQL faults', () => {
  it('refused connections: 503 within 2 s, cached sites still served, views kept, recovery without restart', async () => {
    const f = await open();
    const { id, owner } = await liveProject(f.t);
    expect((await mine(f, owner.token)).status).toBe(200);
    // Served once (cached), and its view written before the outage.
    expect((await page(f, id)).status).toBe(200);
    await f.t.ctx.services.views.flush();
    expect(await viewCount(f, id)).toBe(1);

    const previewPost = { method: 'POST', headers: { authorization: `Bearer ${owner.token}` } };
    const made = await timed(f.port, `/api/projects/${id}/preview-token`, previewPost);
    expect(made.status, made.text).toBe(200);
    const previewUrl = JSON.parse(made.text).data.preview_url as string;

    f.proxy.cut();
    expectUnavailable(await mine(f, owner.token));
    // A public API page that needs the database, without a session.
    expectUnavailable(await timed(f.port, '/api/projects/public'));
    // The process is alive and says so; it is not ready, and names the database.
    expect((await timed(f.port, '/healthz')).status).toBe(200);
    const ready = await timed(f.port, '/readyz');
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.text).failed).toContain('database');

    // The cached site is served, and its view is counted (kept in memory while it can't be written).
    const served = await page(f, id);
    expect(served.status).toBe(200);
    expect(served.text).toContain('你好');
    await expect(f.t.ctx.services.views.flush()).rejects.toThrow();
    expect(f.t.ctx.services.views.pendingCount()).toBe(1);
    // Even once its cached pointer is older than its time to live (61 s later): kept while the
    // database is unreachable, rather than a 503.
    const realNow = Date.now;
    vi.spyOn(Date, 'now').mockImplementation(() => realNow() + 61_000);
    expect((await page(f, id)).status).toBe(200);
    vi.restoreAllMocks();
    // A site this instance never served can't be looked up: 503, not a 404 that would be a lie;
    // a page for the visitor's browser, as is a preview link, which is looked up every time.
    expectUnavailablePage(await timed(f.port, `/sites/${id + 1000}/`));
    expectUnavailablePage(await timed(f.port, previewUrl));
    // The API keeps its JSON.
    expectUnavailable(await timed(f.port, `/api/projects/${id}/preview-token`, previewPost));

    f.proxy.restore();
    await eventually(async () => (await mine(f, owner.token)).status === 200, 10_000, 'recovery');
    expect((await timed(f.port, '/readyz')).status).toBe(200);
    // Nothing lost: the views counted before and during the outage are all written.
    await f.t.ctx.services.views.flush();
    expect(await viewCount(f, id)).toBe(3);
  });

  it('a silent server (blackhole): 503 within 2 s on pooled and new connections, then recovery', async () => {
    const f = await open();
    const { id, owner } = await liveProject(f.t);
    // Several requests at once: the pool holds several connections that go silent together.
    const warm = await Promise.all(Array.from({ length: 5 }, () => mine(f, owner.token)));
    expect(warm.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect((await page(f, id)).status).toBe(200);

    f.proxy.blackhole();
    // The first request takes a pooled connection whose query is never answered.
    expectUnavailable(await mine(f, owner.token));
    // Several at once, now that the database is known to be down: at once.
    const during = await Promise.all(Array.from({ length: 5 }, () => mine(f, owner.token)));
    for (const r of during) expectUnavailable(r);
    expect((await timed(f.port, '/healthz')).status).toBe(200);
    expect((await page(f, id)).status).toBe(200);

    f.proxy.restore();
    await eventually(async () => (await mine(f, owner.token)).status === 200, 10_000, 'recovery');
    expect((await timed(f.port, '/readyz')).status).toBe(200);
  });

  it('a silent server that is new to the pool: a fresh connection gives up within 2 s', async () => {
    const f = await open();
    const { owner } = await liveProject(f.t);
    f.proxy.dropConnections();
    // No pooled connection survives: the next query must open one, into the silence.
    f.proxy.blackhole();
    expectUnavailable(await mine(f, owner.token));
    f.proxy.restore();
    await eventually(async () => (await mine(f, owner.token)).status === 200, 10_000, 'recovery');
  });

  it('gives up on a statement the server keeps running, 2 s past the statement bound, and drops its connection', async () => {
    // The server still answers (the outage watch's question is answered), but this connection's
    // statement has no server-side bound: only the pool's own read bound ends the wait.
    const pool = new GuardedPool(
      { connectionString: PG_URL, max: 1 },
      { connectMs: 1_000, acquireMs: 1_500, statementMs: 1_000 },
      { open: true },
    );
    opened.push({ close: () => pool.end() });
    const client = await pool.connect();
    await client.query('set statement_timeout = 0', []);
    const started = performance.now();
    const failed = await client.query('select pg_sleep(8)', []).then(
      () => null,
      (err: unknown) => err,
    );
    const waited = performance.now() - started;
    client.release();
    expect(failed).toBeInstanceOf(DatabaseUnavailable);
    expect(waited).toBeGreaterThanOrEqual(2_900);
    expect(waited).toBeLessThan(6_000);
    // A new connection (the lifted bound went with the old one) answers, bounded again.
    const next = await pool.connect();
    const r = await next.query<{ bound: string }>('select current_setting($1) as bound', [
      'statement_timeout',
    ]);
    next.release();
    expect(r.rows[0]!.bound).toBe('1s');
  });

  it('terminated backends (57P01) of idle connections: no crash, the next requests succeed', async () => {
    const f = await open();
    const { id, owner } = await liveProject(f.t);
    await Promise.all(Array.from({ length: 4 }, () => mine(f, owner.token)));
    expect(await terminateBackends(f.applicationName)).toBeGreaterThan(0);
    // Every idle connection was killed under the pool; none of this ends the process, and the pool
    // opens new ones: within a few seconds everything answers, and never with a 500.
    const statuses: number[] = [];
    await eventually(
      async () => {
        const r = await mine(f, owner.token);
        statuses.push(r.status);
        return r.status === 200;
      },
      5_000,
      'a successful request after the termination',
    );
    expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
    const after = await Promise.all(Array.from({ length: 4 }, () => mine(f, owner.token)));
    expect(after.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect((await page(f, id)).status).toBe(200);
  });

  describe('a request in the middle of a transaction', () => {
    /**
     * An approval whose transaction waits on a row lock the test holds: the request is inside
     * its transaction (after BEGIN) when the fault strikes. Returns the pending request and a way
     * to let the lock go.
     */
    async function approvalInTransaction(f: FaultApp) {
      const owner = await f.t.createUser();
      const uploaded = await uploadProject(f.t, owner.token, { name: '事务项目', files: SIMPLE_SITE });
      expect(uploaded.statusCode).toBe(201);
      const id = uploaded.json().data.project.id as number;
      const adminToken = await f.t.adminToken();
      const locker = new pg.Client({ connectionString: PG_URL, options: `-c search_path=${f.schema}` });
      locker.on('error', () => {});
      await locker.connect();
      opened.push({ close: () => locker.end().catch(() => {}) });
      await locker.query('begin');
      await locker.query('select id from projects where id = $1 for update', [id]);
      const approve = () =>
        timed(f.port, `/api/admin/projects/${id}/review`, {
          method: 'POST',
          headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({ action: 'approve' }),
        });
      const pending = approve();
      // Wait until the app's transaction is blocked on the lock.
      await eventually(
        () =>
          direct('public', async (c) => {
            const r = await c.query(
              `select 1 from pg_stat_activity where application_name = $1 and wait_event_type = 'Lock'`,
              [f.applicationName],
            );
            return (r.rowCount ?? 0) > 0;
          }),
        5_000,
        'the approval waiting on the lock',
      );
      const status = () =>
        direct(
          f.schema,
          async (c) =>
            (await c.query('select status, live_deployment_id from projects where id = $1', [id])).rows[0],
        );
      return {
        id,
        pending,
        approve,
        status,
        async unlock() {
          await locker.query('rollback');
          await locker.end();
        },
      };
    }

    async function expectRecoveredApproval(
      f: FaultApp,
      tx: Awaited<ReturnType<typeof approvalInTransaction>>,
    ) {
      // Nothing of the interrupted transaction was applied.
      expect(await tx.status()).toEqual({ status: 'pending', live_deployment_id: null });
      await tx.unlock();
      await eventually(
        async () => (await tx.approve()).status === 200,
        10_000,
        'the approval after recovery',
      );
      expect((await tx.status()).status).toBe('approved');
      expect((await timed(f.port, `/sites/${tx.id}/`)).status).toBe(200);
    }

    it.each([
      ['its backend terminated (57P01)', (f: FaultApp) => terminateBackends(f.applicationName)],
      ['connections cut', (f: FaultApp) => f.proxy.cut()],
      ['the server gone silent', (f: FaultApp) => f.proxy.blackhole()],
    ])('%s: 503 within 2 s, nothing half-written, then it succeeds', async (_name, fault) => {
      const f = await open();
      const tx = await approvalInTransaction(f);
      const started = performance.now();
      await fault(f);
      const res = await tx.pending;
      expectUnavailable({ ...res, ms: performance.now() - started });
      expect((await timed(f.port, '/healthz')).status).toBe(200);
      f.proxy.restore();
      await expectRecoveredApproval(f, tx);
    });
  });
});
