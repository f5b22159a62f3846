/**
 * The leftover sweep (docs/decisions/instances.md "Leftover sweep"): it runs every few minutes as well as at
 * start-up, removes the staging folders and blob leases of instances that are gone (in every
 * mode, REDIS_URL or not), never a live instance's, and counts the bytes it reclaimed.
 */
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { HEARTBEAT_TTL_MS, Instances } from '../src/jobs/instances.js';
import { leasedJobs } from '../src/jobs/job-runner.js';
import { STALE_AFTER_MS, sweepLeftovers } from '../src/jobs/sweep.js';
import { createTestApp, listTree, type TestApp } from './helpers.js';

const opened: TestApp[] = [];
afterEach(async () => {
  for (const t of opened.splice(0)) await t.close();
});

async function testApp(overrides: Parameters<typeof createTestApp>[0] = {}) {
  const t = await createTestApp(overrides);
  opened.push(t);
  return t;
}

/** Another host's instance: alive only while its heartbeat is fresh. */
const OTHER_LIVE = 'i_otherhost_4242_0badc0de';
const OTHER_DEAD = 'i_otherhost_4343_deadbeef';

/** A staging folder with one staged file, as an upload of that instance leaves it. */
function stagedBy(t: TestApp, instance: string, bytes: number): string {
  const folder = path.join(t.dataDir, 'staging', `${instance}.${Date.now().toString(36)}-abc`);
  fs.mkdirSync(path.join(folder, 'in'), { recursive: true });
  fs.writeFileSync(path.join(folder, 'in', '0'), Buffer.alloc(bytes, 1));
  return folder;
}

/** A deploy PUT's body staged as one file (services/deploys.ts), as that instance leaves it. */
function stagedFileBy(t: TestApp, instance: string, bytes: number): string {
  const file = path.join(t.dataDir, 'staging', `${instance}.${Date.now().toString(36)}-def`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, Buffer.alloc(bytes, 2));
  return file;
}

/** A stored blob no deployment references, leased by an upload of that instance. */
async function leasedOrphan(t: TestApp, instance: string, text: string): Promise<string> {
  // Leased before it is stored, as an upload's blobs are held before they are written: the other
  // way round, a sweep running in between (every 200 ms here) took it for an orphan.
  const sha256 = createHash('sha256').update(text).digest('hex');
  await t.ctx.cluster.leases.leaseBlobs(
    t.ctx.db,
    `${instance}/${randomUUID()}`,
    [sha256],
    new Date().toISOString(),
  );
  expect((await t.ctx.store.put(Readable.from([Buffer.from(text)]))).sha256).toBe(sha256);
  return sha256;
}

async function reclaimed(t: TestApp, kind: 'staging' | 'blobs'): Promise<number> {
  const { body } = await t.ctx.metrics.scrape();
  return Number(
    new RegExp(`sitehall_sweep_reclaimed_bytes_total\\{kind="${kind}"\\} (\\d+)`).exec(body)?.[1] ?? 0,
  );
}

describe('leftover sweep', () => {
  it('runs periodically: a dead instance’s staging, leases and blobs go without a restart', async () => {
    const t = await testApp({ sweepIntervalMs: 200 });
    const { leases } = t.ctx.cluster;
    const future = new Date(Date.now() + HEARTBEAT_TTL_MS).toISOString();
    await leases.heartbeat(t.ctx.db, OTHER_LIVE, future);
    // The dead one beat once, long ago.
    await leases.heartbeat(t.ctx.db, OTHER_DEAD, new Date(Date.now() - 1000).toISOString());

    const deadStaging = stagedBy(t, OTHER_DEAD, 5000);
    const deadPut = stagedFileBy(t, OTHER_DEAD, 3000);
    const liveStaging = stagedBy(t, OTHER_LIVE, 100);
    const livePut = stagedFileBy(t, OTHER_LIVE, 100);
    const deadBlob = await leasedOrphan(t, OTHER_DEAD, 'dead upload blob');
    const liveBlob = await leasedOrphan(t, OTHER_LIVE, 'live upload blob');

    await expect
      .poll(
        async () =>
          fs.existsSync(deadStaging) || fs.existsSync(deadPut) || (await t.ctx.store.stat(deadBlob)) !== null,
        { timeout: 60_000 },
      )
      .toBe(false);
    // The live instance keeps all of its own.
    expect(fs.existsSync(liveStaging)).toBe(true);
    expect(fs.existsSync(livePut)).toBe(true);
    expect(await t.ctx.store.stat(liveBlob)).not.toBeNull();
    const rows = await t.ctx.db.selectFrom('blob_leases').select(['upload_id', 'sha256']).execute();
    expect(rows.map((r) => r.sha256)).toEqual([liveBlob]);
    expect(rows[0]!.upload_id.startsWith(`${OTHER_LIVE}/`)).toBe(true);
    // The dead instance's heartbeat row is gone too; the live one's stays.
    expect(await leases.liveInstances(t.ctx.db, new Date().toISOString())).toEqual(
      new Set([t.ctx.cluster.instances.self, OTHER_LIVE]),
    );
    expect(await leases.job(t.ctx.db, `instance:${OTHER_DEAD}`)).toBeUndefined();
    // The folder's file and the staged PUT file, both counted.
    await expect.poll(() => reclaimed(t, 'staging')).toBeGreaterThanOrEqual(8000);
    await expect.poll(() => reclaimed(t, 'blobs')).toBe('dead upload blob'.length);
  });

  it('with several instances (REDIS_URL), removes a dead instance’s staging at once, a live one’s never', async () => {
    const t = await testApp();
    const { leases, gate } = t.ctx.cluster;
    const self = new Instances(t.ctx.db, leases);
    await self.heartbeat();
    await leases.heartbeat(t.ctx.db, OTHER_LIVE, new Date(Date.now() + HEARTBEAT_TTL_MS).toISOString());
    // Same host, a pid that is not running: gone, whatever its heartbeat says.
    const sameHostDead = self.self.replace(/_\d+_/, '_999999999_').replace(/_[0-9a-f]{8}$/, '_00000000');
    await leases.heartbeat(t.ctx.db, sameHostDead, new Date(Date.now() + HEARTBEAT_TTL_MS).toISOString());
    const live = stagedBy(t, OTHER_LIVE, 10);
    const dead = stagedBy(t, sameHostDead, 10);
    const mine = stagedBy(t, self.self, 10);
    // A folder from before instance folders, young: kept while several instances share DATA_DIR.
    const legacy = path.join(t.dataDir, 'staging', `${Date.now().toString(36)}-0123`);
    fs.mkdirSync(legacy, { recursive: true });

    const result = await sweepLeftovers({
      db: t.ctx.db,
      store: t.ctx.store,
      gate,
      leases,
      jobs: leasedJobs(t.ctx.db, leases, 'sweeper'),
      dataDir: t.dataDir,
      shared: true,
      instances: self,
    });
    expect(result.stagingRemoved).toBe(1);
    expect(fs.existsSync(dead)).toBe(false);
    expect(fs.existsSync(live)).toBe(true);
    expect(fs.existsSync(mine)).toBe(true);
    expect(fs.existsSync(legacy)).toBe(true);
    expect(listTree(path.join(t.dataDir, 'staging')).filter((f) => !f.includes('/'))).toHaveLength(3);
  });

  it('reads when a folder was made from its name in both forms, with or without an instance before the dot', async () => {
    const t = await testApp();
    const { leases, gate } = t.ctx.cluster;
    const root = path.join(t.dataDir, 'staging');
    const folder = (name: string) => {
      fs.mkdirSync(path.join(root, name), { recursive: true });
      return path.join(root, name);
    };
    const young = Date.now().toString(36);
    const old = (Date.now() - 2 * STALE_AFTER_MS).toString(36);
    // Named after something that is not an instance id: judged by its age, as a legacy folder.
    const youngNamed = folder(`elsewhere.${young}-abc`);
    const oldNamed = folder(`elsewhere.${old}-abc`);
    const youngLegacy = folder(`${young}-def`);
    const oldLegacy = folder(`${old}-def`);

    const result = await sweepLeftovers({
      db: t.ctx.db,
      store: t.ctx.store,
      gate,
      leases,
      jobs: leasedJobs(t.ctx.db, leases, 'sweeper'),
      dataDir: t.dataDir,
      shared: true,
    });
    expect(result.stagingRemoved).toBe(2);
    expect(fs.existsSync(youngNamed)).toBe(true);
    expect(fs.existsSync(youngLegacy)).toBe(true);
    expect(fs.existsSync(oldNamed)).toBe(false);
    expect(fs.existsSync(oldLegacy)).toBe(false);
  });
});
