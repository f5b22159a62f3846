/**
 * Timed work while the server runs: counted site views are written every few seconds; preview
 * tokens that can no longer open anything (expired or revoked) are deleted every few minutes; the
 * showcase's search index takes queued changes in the background (from the start, so a large
 * backlog after an upgrade is not left to the first visitor). Timers never keep the process alive,
 * and a run never overlaps the previous one.
 */
import type { ShowcaseRepository } from '../repositories/showcase.js';
import type { PreviewService } from '../services/previews.js';
import type { ViewCounter } from '../services/views.js';

export interface TimedJobsOptions {
  /** How often counted views are written (ms). Default 5 s. */
  viewFlushMs?: number;
  /** How often dead preview tokens are deleted (ms). Default 10 min. */
  previewPurgeMs?: number;
  /** How often queued showcase changes are applied in the background (ms). Default 30 s. */
  showcaseIndexMs?: number;
  onError?: (job: string, error: unknown) => void;
}

export interface TimedJobs {
  /** Stops the timers and waits for a run in progress (the caller then flushes the views itself). */
  stop(): Promise<void>;
}

export function startTimedJobs(
  services: {
    views: ViewCounter;
    previews: PreviewService;
    showcase: Pick<ShowcaseRepository, 'refreshIndex'>;
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

  every('view-flush', opts.viewFlushMs ?? 5_000, () => services.views.flush());
  every('preview-purge', opts.previewPurgeMs ?? 10 * 60_000, () => services.previews.purge(), true);
  every('showcase-index', opts.showcaseIndexMs ?? 30_000, () => services.showcase.refreshIndex(), true);

  return {
    async stop() {
      for (const timer of timers) clearInterval(timer);
      await Promise.all(running);
    },
  };
}
