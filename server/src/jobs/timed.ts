/**
 * Timed work while the server runs: counted site views are written every few seconds; preview
 * tokens that can no longer open anything (expired or revoked) are deleted every few minutes; old
 * notices and analytics rows every few hours (services/retention.ts); the
 * showcase's search index takes queued changes in the background (from the start, so a large
 * backlog after an upgrade is not left to the first visitor). Timers never keep the process alive,
 * and a run never overlaps the previous one.
 *
 * With several instances the purge and the index run on one instance per round (jobs/job-runner.ts);
 * the view flush runs on every instance, since each writes its own counts with atomic increments.
 * Every instance renews its heartbeat and sweeps leftovers every few minutes (jobs/sweep.ts: the
 * blob part of it runs on one instance per round).
 */

import type { PreviewService } from '../services/previews.js';
import type { RetentionService } from '../services/retention.js';
import type { ShowcaseService } from '../services/showcase.js';
import type { ViewCounter } from '../services/views.js';
import { HEARTBEAT_MS } from './instances.js';
import { type JobRunner, runHere } from './job-runner.js';

export interface TimedJobsOptions {
  /** How often counted views are written (ms). Default 5 s. */
  viewFlushMs?: number;
  /** How often dead preview tokens are deleted (ms). Default 10 min. */
  previewPurgeMs?: number;
  /** How often queued showcase changes are applied in the background (ms). Default 30 s. */
  showcaseIndexMs?: number;
  /** How often old notices and analytics rows are deleted (ms). Default 6 h. */
  retentionMs?: number;
  onError?: (job: string, error: unknown) => void;
  /** Who runs the jobs that need only one instance (default: this process). */
  jobs?: JobRunner;
  /** Renews this instance's heartbeat (jobs/instances.ts), every HEARTBEAT_MS. */
  heartbeat?: () => Promise<unknown>;
  /** The leftover sweep (jobs/sweep.ts) after the one at start-up; it leases its own blob part. */
  sweep?: { everyMs: number; run: () => Promise<unknown> };
}

export interface TimedJobs {
  /** Stops the timers and waits for a run in progress (the caller then flushes the views itself). */
  stop(): Promise<void>;
}

export function startTimedJobs(
  services: {
    views: ViewCounter;
    previews: PreviewService;
    showcase: Pick<ShowcaseService, 'refreshIndex'>;
    /** Deletes old notices and analytics rows (services/retention.ts); absent in older callers. */
    retention?: Pick<RetentionService, 'run'>;
  },
  opts: TimedJobsOptions = {},
): TimedJobs {
  const onError = opts.onError ?? (() => {});
  const running = new Set<Promise<unknown>>();
  const timers: NodeJS.Timeout[] = [];

  function every(name: string, ms: number, work: () => Promise<unknown>, runNow = false) {
    let busy = false;
    const run = () => {
      if (busy) return;
      busy = true;
      const p = work()
        .catch((error: unknown) => onError(name, error))
        .finally(() => {
          busy = false;
          running.delete(p);
        });
      running.add(p);
    };
    const timer = setInterval(run, ms);
    timer.unref();
    timers.push(timer);
    if (runNow) run();
  }

  const jobs = opts.jobs ?? runHere;
  /** A job one instance per round is enough for: the others' timers skip while it is held. */
  const once = (name: string, ms: number, work: () => Promise<unknown>) => () =>
    jobs.run(name, { holdMs: Math.max(ms, 10 * 60_000), cooldownMs: Math.floor(ms * 0.9) }, work);

  every('view-flush', opts.viewFlushMs ?? 5_000, () => services.views.flush());
  const purgeMs = opts.previewPurgeMs ?? 10 * 60_000;
  every(
    'preview-purge',
    purgeMs,
    once('preview-purge', purgeMs, () => services.previews.purge()),
    true,
  );
  const indexMs = opts.showcaseIndexMs ?? 30_000;
  every(
    'showcase-index',
    indexMs,
    once('showcase-index', indexMs, () => services.showcase.refreshIndex()),
    true,
  );

  const retention = services.retention;
  if (retention) {
    const retentionMs = opts.retentionMs ?? 6 * 3_600_000;
    every(
      'retention',
      retentionMs,
      once('retention', retentionMs, () => retention.run()),
      true,
    );
  }

  if (opts.heartbeat) every('instance-heartbeat', HEARTBEAT_MS, opts.heartbeat);
  if (opts.sweep) every('leftover-sweep', opts.sweep.everyMs, opts.sweep.run);

  return {
    async stop() {
      for (const timer of timers) clearInterval(timer);
      await Promise.all(running);
    },
  };
}
