/**
 * What lets several instances share one database and one blob store: job leases (a job runs on
 * one instance at a time) and blob leases (no sweep or delete on one instance removes a blob an
 * upload on another is storing). Each "instance" here has its own job holder and its own blob gate
 * (the in-process queue) over one app's database: all they share is what real instances share.
 * (Two better-sqlite3 connections in one process would block each other's event loop; the run with
 * real processes is test/cluster.test.ts.)
 */
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { blobLeasesOn } from '../src/context.js';
import type { DB } from '../src/db/database.js';
import { type JobRunner, leasedJobs, runHere } from '../src/jobs/job-runner.js';
import { STALE_AFTER_MS, sweepLeftovers } from '../src/jobs/sweep.js';
import * as deploymentFiles from '../src/repositories/deployment-files.js';
import { BLOB_GATE_LOCK } from '../src/repositories/leases.js';
import { BlobGate } from '../src/storage/blob-gate.js';
import { createTestApp, SIMPLE_SITE, type TestApp, uploadProject, usingPostgres } from './helpers.js';

let t: TestApp;

beforeEach(async () => {
  t = await createTestApp();
});
afterEach(async () => {
  await t.close();
});

const blob = (text: string) => Readable.from([Buffer.from(text)]);

/** What one more instance on the same database and store would have of its own. */
function instance(name: string) {
  const { leases } = t.ctx.cluster;
  return {
    jobs: leasedJobs(t.ctx.db, leases, name),
    gate: new BlobGate({
      leases: blobLeasesOn(t.ctx.db, leases),
      store: t.ctx.store,
      unreferenced: (hashes, trx) => deploymentFiles.unreferenced(trx, hashes),
    }),
  };
}

function sweepOn(gate: BlobGate<DB>, jobs: JobRunner = runHere) {
  const { leases } = t.ctx.cluster;
  return sweepLeftovers({
    db: t.ctx.db,
    leases,
    gate,
    jobs,
    shared: true,
    store: t.ctx.store,
    dataDir: t.dataDir,
  });
}

describe('job leases', () => {
  it('runs a job on one instance at a time, counting each run', async () => {
    const onA = instance('instance-a').jobs;
    const onB = instance('instance-b').jobs;
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    const opts = { holdMs: 60_000, cooldownMs: 0 };
    const first = onA.run('demo', opts, () => held.then(() => 'a'));
    // While A runs it, B (and A again) are turned away.
    await expect
      .poll(async () => (await t.ctx.cluster.leases.job(t.ctx.db, 'demo'))?.holder)
      .toBe('instance-a');
    expect(await onB.run('demo', opts, async () => 'b')).toEqual({ ran: false });
    expect(await onA.run('demo', opts, async () => 'a again')).toEqual({ ran: false });
    release();
    expect(await first).toEqual({ ran: true, result: 'a' });
    // Released (no cooldown): the next round may run anywhere.
    expect(await onB.run('demo', opts, async () => 'b')).toEqual({ ran: true, result: 'b' });
    expect(await t.ctx.cluster.leases.job(t.ctx.db, 'demo')).toMatchObject({ holder: 'instance-b', runs: 2 });
  });

  it('keeps the job for the cooldown after a run, and frees a lease whose holder died', async () => {
    const onA = instance('instance-a').jobs;
    const onB = instance('instance-b').jobs;
    await onA.run('cool', { holdMs: 60_000, cooldownMs: 60_000 }, async () => 1);
    expect((await onB.run('cool', { holdMs: 60_000, cooldownMs: 0 }, async () => 2)).ran).toBe(false);

    // A holder that never finished: its lease ran out, so another instance takes the job.
    await t.ctx.db
      .insertInto('job_leases')
      .values({
        name: 'dead',
        holder: 'crashed',
        expires_at: new Date(Date.now() - 1).toISOString(),
        runs: 1,
      })
      .execute();
    expect(await onB.run('dead', { holdMs: 60_000, cooldownMs: 0 }, async () => 'taken')).toEqual({
      ran: true,
      result: 'taken',
    });
  });

  it('lets only one of several instances starting at once take the orphan sweep', async () => {
    const before = (await t.ctx.cluster.leases.job(t.ctx.db, 'orphan-sweep'))?.runs ?? 0;
    await t.ctx.db.deleteFrom('job_leases').execute();
    const instances = ['a', 'b', 'c'].map(instance);
    const results = await Promise.all(instances.map((i) => sweepOn(i.gate, i.jobs)));
    expect(results.filter((r) => r.blobsRemoved !== null)).toHaveLength(1);
    expect((await t.ctx.cluster.leases.job(t.ctx.db, 'orphan-sweep'))?.runs).toBe(1);
    // A single process (no REDIS_URL) runs its sweep without any lease.
    expect(before).toBe(0);
  });
});

describe('blob leases', () => {
  it('a sweep on one instance keeps a blob an upload on another is still storing', async () => {
    const a = instance('a');
    const b = instance('b');
    let finishUpload!: () => void;
    const uploadMayFinish = new Promise<void>((r) => {
      finishUpload = r;
    });
    let stored!: () => void;
    const blobStored = new Promise<void>((r) => {
      stored = r;
    });
    const content = 'a file an upload on instance A is storing';
    const { sha256 } = await t.ctx.store.put(blob(content));
    await t.ctx.store.delete(sha256);

    // Instance A: leases the hash, stores the blob, and has not committed its rows yet.
    const upload = a.gate.storing([sha256], async () => {
      await t.ctx.store.put(blob(content));
      stored();
      await uploadMayFinish;
    });
    await blobStored;
    // Instance B sweeps meanwhile: no row references the blob, but it is leased.
    expect((await sweepOn(b.gate)).blobsRemoved).toBe(0);
    expect(await t.ctx.store.stat(sha256)).not.toBeNull();

    finishUpload();
    await upload;
    // The upload ended without rows (say it was refused) and released its lease: now an orphan.
    expect(await t.ctx.db.selectFrom('blob_leases').selectAll().execute()).toEqual([]);
    expect((await sweepOn(b.gate)).blobsRemoved).toBe(1);
    expect(await t.ctx.store.stat(sha256)).toBeNull();
  });

  it('drops leases a crashed instance left once they are stale, and removes only old staging folders', async () => {
    const { sha256 } = await t.ctx.store.put(blob('left by a crash'));
    const stale = new Date(Date.now() - STALE_AFTER_MS - 60_000).toISOString();
    await t.ctx.db
      .insertInto('blob_leases')
      .values({ upload_id: 'crashed', sha256, created_at: stale })
      .execute();
    const staging = path.join(t.dataDir, 'staging');
    const young = `${Date.now().toString(36)}-aaaaaaaaaaaa`;
    const old = `${(Date.now() - STALE_AFTER_MS - 60_000).toString(36)}-bbbbbbbbbbbb`;
    for (const name of [young, old]) fs.mkdirSync(path.join(staging, name, 'in'), { recursive: true });

    expect(await sweepOn(instance('b').gate)).toMatchObject({ stagingRemoved: 1, blobsRemoved: 1 });
    expect(fs.readdirSync(staging)).toEqual([young]);
    expect(await t.ctx.store.stat(sha256)).toBeNull();
  });

  it('a release the database refuses is tried again until it is taken, and the upload still answers', async () => {
    // The database refuses to delete lease rows (a real failure of the real database; on
    // PostgreSQL, test/faults/lease-release.test.ts cuts the connection instead).
    if (usingPostgres) {
      await sql`create function refuse_release() returns trigger language plpgsql as $$
        begin raise exception 'lease rows cannot be deleted now'; end $$`.execute(t.ctx.db);
      await sql`create trigger refuse_release before delete on blob_leases
        for each row execute function refuse_release()`.execute(t.ctx.db);
    } else {
      await sql`create trigger refuse_release before delete on blob_leases
        begin select raise(abort, 'lease rows cannot be deleted now'); end`.execute(t.ctx.db);
    }
    const leases = () => t.ctx.db.selectFrom('blob_leases').select('upload_id').execute();
    const { gate } = t.ctx.cluster;
    const owner = await t.createUser();
    const res = await uploadProject(t, owner.token, { name: '租约放不掉', files: SIMPLE_SITE });
    expect(res.statusCode, res.body).toBe(201);
    // Its lease is still there, remembered for another try.
    expect((await leases()).length).toBeGreaterThan(0);
    expect(gate.unreleased).toBe(1);

    await sql`drop trigger refuse_release${sql.raw(usingPostgres ? ' on blob_leases' : '')}`.execute(
      t.ctx.db,
    );
    // Released by the retry, not by the sweep (which keeps a live instance's leases for an hour).
    await expect.poll(leases, { timeout: 60_000, interval: 100 }).toEqual([]);
    expect(gate.unreleased).toBe(0);
  });

  it.skipIf(!usingPostgres)('a lease waits while another instance checks and deletes blobs', async () => {
    const order: string[] = [];
    let deleterStarted!: () => void;
    const started = new Promise<void>((r) => {
      deleterStarted = r;
    });
    // The lease's transaction asks for this schema's blob lock and waits for it (PostgreSQL's own
    // view of its locks), unless nothing holds it back and the lease is written at once.
    const leaseWaits = async () => {
      const { rows } = await sql<{ n: number }>`
        select count(*)::int as n from pg_locks
        where locktype = 'advisory' and not granted and objid = ${BLOB_GATE_LOCK}
          and classid = (hashtext(current_schema())::bigint & 4294967295)::oid`.execute(t.ctx.db);
      return rows[0]!.n > 0;
    };
    const deleter = t.ctx.cluster.leases.deletingBlobs(t.ctx.db, async () => {
      deleterStarted();
      await expect.poll(async () => order.includes('lease written') || (await leaseWaits())).toBe(true);
      order.push('deleter done');
    });
    await started;
    await t.ctx.cluster.leases.leaseBlobs(t.ctx.db, 'upload-1', ['cd'.repeat(32)], new Date().toISOString());
    order.push('lease written');
    await deleter;
    expect(order).toEqual(['deleter done', 'lease written']);
  });
});
