/**
 * Who runs a job that must not run on every instance at once (docs/decisions/instances.md "Job leases").
 * A single process runs everything itself. With several instances (REDIS_URL set) a job runs
 * where its lease row was taken: one atomic upsert on the shared database decides, the lease
 * expires on its own if the instance dies mid-run, and after a run it is held a little longer
 * (the cooldown) so the other instances' timers skip that round instead of repeating the work.
 */
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { DB } from '../db/database.js';
import type { LeasesRepository } from '../repositories/leases.js';

export interface JobRunOptions {
  /** Longest a run may hold the job before another instance may take it (it died, say). */
  holdMs: number;
  /** How long after a run the other instances leave the job alone. */
  cooldownMs: number;
}

export interface JobRunner {
  /** Runs work unless another instance has the job; `ran` tells which happened. */
  run<T>(
    name: string,
    opts: JobRunOptions,
    work: () => Promise<T>,
  ): Promise<{ ran: true; result: T } | { ran: false }>;
}

/** One process: every job runs here. */
export const runHere: JobRunner = {
  async run(_name, _opts, work) {
    return { ran: true, result: await work() };
  },
};

export function leasedJobs(
  db: DB,
  leases: LeasesRepository,
  holder = `${os.hostname()}:${process.pid}:${randomUUID()}`,
): JobRunner {
  const iso = (ms: number) => new Date(ms).toISOString();
  return {
    async run(name, opts, work) {
      const t = Date.now();
      if (!(await leases.takeJob(db, name, holder, iso(t + opts.holdMs), iso(t)))) return { ran: false };
      try {
        return { ran: true, result: await work() };
      } finally {
        await leases.holdJobUntil(db, name, holder, iso(Date.now() + opts.cooldownMs));
      }
    },
  };
}
