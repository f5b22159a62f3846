/**
 * Startup sweep: whatever a crash (kill -9) left half-made is removed before the server takes
 * requests — staging folders of uploads that never committed, and blobs no deployment references
 * (stored just before a crash, before their rows were written).
 *
 * With several instances (docs/decisions.md "Orphan sweep safety") the blob part runs on one
 * instance at a time through a job lease and never deletes a blob an upload has leased (one that
 * another instance is storing right now); leases left by a crashed instance are dropped once
 * stale. Staging folders are the instance's own unless DATA_DIR is shared, so only those older
 * than any upload can take are removed there.
 */
import fs from 'node:fs';
import path from 'node:path';
import { stagingRoot } from '../ingest/staging.js';
import type { LeasesRepository } from '../repositories/leases.js';
import type { BlobGate } from '../services/blob-gate.js';
import type { BlobStore } from '../storage/index.js';
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
}

export interface SweepDeps {
  store: BlobStore;
  gate: BlobGate;
  leases: LeasesRepository;
  jobs: JobRunner;
  dataDir: string;
  /** Several instances: keep young staging folders and stale-check leases (see above). */
  shared: boolean;
  /**
   * Staging folders made from this moment (epoch ms) on are uploads of the running instance, not
   * leftovers: the sweep runs after requests began when the database was unreachable at start.
   */
  keepStagedFrom?: number;
}

/** When a staging folder was made, from its name (stageUpload's `{base36 ms}-{random}`). */
function stagedAt(name: string): number {
  const ms = Number.parseInt(name.split('-')[0] ?? '', 36);
  return Number.isFinite(ms) ? ms : 0;
}

export async function sweepLeftovers(deps: SweepDeps): Promise<SweepResult> {
  const root = stagingRoot(deps.dataDir);
  const cutoff = Date.now() - STALE_AFTER_MS;
  let stagingRemoved = 0;
  for (const name of await fs.promises.readdir(root).catch(() => [] as string[])) {
    if (deps.shared && stagedAt(name) > cutoff) continue;
    if (deps.keepStagedFrom !== undefined && stagedAt(name) >= deps.keepStagedFrom) continue;
    await fs.promises.rm(path.join(root, name), { recursive: true, force: true });
    stagingRemoved++;
  }

  const orphans = await deps.jobs.run(
    ORPHAN_SWEEP_JOB,
    // Others starting within a minute of this sweep need not repeat it.
    { holdMs: 30 * 60_000, cooldownMs: 60_000 },
    async () => {
      await deps.leases.dropBlobLeasesBefore(new Date(cutoff).toISOString());
      let removed = 0;
      let batch: string[] = [];
      for await (const hash of deps.store.list()) {
        batch.push(hash);
        if (batch.length === 500) {
          removed += await deps.gate.deleteUnused(batch);
          batch = [];
        }
      }
      removed += await deps.gate.deleteUnused(batch);
      return { removed, temp: await deps.store.removeStaleTemp() };
    },
  );
  return orphans.ran
    ? { stagingRemoved, blobsRemoved: orphans.result.removed, tempRemoved: orphans.result.temp }
    : { stagingRemoved, blobsRemoved: null, tempRemoved: null };
}
