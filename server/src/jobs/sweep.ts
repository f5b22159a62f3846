/**
 * The leftover sweep (docs/decisions/instances.md "Leftover sweep"): whatever a crash (kill -9) left
 * half-made is removed — at start-up before the server takes requests, then every few minutes:
 * staging folders (or a deploy PUT's one file) and blob leases of uploads whose process is gone,
 * and blobs no deployment references (stored just before a crash, before their rows were written),
 * and digest deploys idle past their time (services/deploys.ts), with their blobs.
 *
 * Staging folders are named after their instance (staging/{instance}.{upload}): any process
 * sweeping the folder removes those of dead instances (jobs/instances.ts), never a live one's. The blob part
 * runs on one instance at a time through a job lease and never deletes a blob a live upload has
 * leased (docs/decisions/instances.md "Orphan sweep safety").
 */
import fs from 'node:fs';
import path from 'node:path';
import type { DB } from '../db/database.js';
import { parseStagingName, stagingRoot } from '../ingest/staging.js';
import type { Metrics } from '../metrics/metrics.js';
import type { LeasesRepository } from '../repositories/leases.js';
import type { BlobGate } from '../storage/blob-gate.js';
import type { BlobStore } from '../storage/index.js';
import { type Instances, isInstanceId, leaseOwner } from './instances.js';
import type { JobRunner } from './job-runner.js';

/** Longer than any upload takes from its first byte to its commit (requests end after 10 min). */
export const STALE_AFTER_MS = 60 * 60_000;
export const ORPHAN_SWEEP_JOB = 'orphan-sweep';

export interface SweepResult {
  stagingRemoved: number;
  /** null when another instance had the orphan sweep. */
  blobsRemoved: number | null;
  /** Store writes a crash cut off more than an hour ago (temp files, S3 temp objects). */
  tempRemoved: number | null;
  /** Blob leases of dead uploads removed (null as above). */
  leasesRemoved: number | null;
  /** Unfinished digest deploys past their time, removed (null as above). */
  deploysExpired: number | null;
}

export interface SweepDeps {
  db: DB;
  store: BlobStore;
  gate: BlobGate<DB>;
  leases: LeasesRepository;
  jobs: JobRunner;
  dataDir: string;
  /** Several instances: keep young staging folders and stale-check leases (see above). */
  shared: boolean;
  /** Who is alive; without it (older callers) only the hour-old rule applies. */
  instances?: Instances;
  metrics?: Pick<Metrics, 'reclaimed'>;
  /** Removes expired digest deploys, their leases and their unused blobs; returns how many. */
  expireDeploys?: () => Promise<number>;
  /** Removes render jobs whose version is gone (repositories/render-jobs.ts); returns how many. */
  dropRenderJobs?: () => Promise<number>;
  /** How long after this run other instances leave the blob part alone (default 1 min). */
  cooldownMs?: number;
  /**
   * Staging folders made from this moment (epoch ms) on are uploads of the running instance, not
   * leftovers: the sweep runs after requests began when the database was unreachable at start.
   */
  keepStagedFrom?: number;
}

/** Bytes of a staged file, or of the files under a staged folder (what removing it frees). */
async function stagedBytes(entry: string): Promise<number> {
  const stat = await fs.promises.lstat(entry).catch(() => null);
  if (!stat?.isDirectory()) return stat?.size ?? 0;
  let total = 0;
  const entries = await fs.promises.readdir(entry).catch(() => []);
  for (const name of entries) total += await stagedBytes(path.join(entry, name));
  return total;
}

export async function sweepLeftovers(deps: SweepDeps): Promise<SweepResult> {
  const root = stagingRoot(deps.dataDir);
  const cutoff = Date.now() - STALE_AFTER_MS;
  // Who is alive is read after the listing: an instance beats before it makes a folder or a
  // lease, so whatever is listed belongs to an instance the snapshot knows, if it is alive.
  const aliveNow = async () => (deps.instances ? deps.instances.aliveNow() : () => true);
  const names = await fs.promises.readdir(root).catch(() => [] as string[]);
  const alive = await aliveNow();
  let stagingRemoved = 0;
  for (const name of names) {
    // Named by ingest/staging.ts: the instance that made it, when it says, and when.
    const staged = parseStagingName(name);
    const owner = staged.owner !== null && isInstanceId(staged.owner) ? staged.owner : null;
    if (owner) {
      if (alive(owner)) continue;
    } else if (deps.shared && staged.madeAt > cutoff) {
      // A folder from before instance folders (or unknown): by its age, as before.
      continue;
    }
    if (deps.keepStagedFrom !== undefined && staged.madeAt >= deps.keepStagedFrom) continue;
    const dir = path.join(root, name);
    const bytes = await stagedBytes(dir);
    await fs.promises.rm(dir, { recursive: true, force: true, maxRetries: 3 });
    deps.metrics?.reclaimed('staging', bytes);
    stagingRemoved++;
  }

  const orphans = await deps.jobs.run(
    ORPHAN_SWEEP_JOB,
    // Others starting within a minute of this sweep need not repeat it.
    { holdMs: 30 * 60_000, cooldownMs: deps.cooldownMs ?? 60_000 },
    async () => {
      let leasesRemoved = await deps.leases.dropBlobLeasesBefore(deps.db, new Date(cutoff).toISOString());
      // Leases of uploads whose instance is gone: their blobs are orphans now, not in an hour.
      const uploads = await deps.leases.blobLeaseUploads(deps.db);
      const leaseAlive = await aliveNow();
      const dead = uploads.filter((id) => {
        const owner = leaseOwner(id);
        return owner !== null && !leaseAlive(owner);
      });
      leasesRemoved += await deps.leases.dropBlobLeasesOf(deps.db, dead);
      await deps.leases.dropDeadInstances(deps.db, new Date().toISOString());
      const deploysExpired = (await deps.expireDeploys?.()) ?? 0;
      await deps.dropRenderJobs?.();
      let removed = 0;
      const onDeleted = (size: number) => deps.metrics?.reclaimed('blobs', size);
      let batch: string[] = [];
      for await (const hash of deps.store.list()) {
        batch.push(hash);
        if (batch.length === 500) {
          removed += await deps.gate.deleteUnused(batch, onDeleted);
          batch = [];
        }
      }
      removed += await deps.gate.deleteUnused(batch, onDeleted);
      return { removed, leasesRemoved, deploysExpired, temp: await deps.store.removeStaleTemp() };
    },
  );
  return orphans.ran
    ? {
        stagingRemoved,
        blobsRemoved: orphans.result.removed,
        tempRemoved: orphans.result.temp,
        leasesRemoved: orphans.result.leasesRemoved,
        deploysExpired: orphans.result.deploysExpired,
      }
    : { stagingRemoved, blobsRemoved: null, tempRemoved: null, leasesRemoved: null, deploysExpired: null };
}
