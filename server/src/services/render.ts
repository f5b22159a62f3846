/**
 * The render worker (docs/render.md): every uploaded version, and every version that goes live,
 * is opened in headless Chromium by a background job. The job stores two WebP pictures in the blob
 * store and merges what the page did when it ran into the version's content-check report. Jobs are
 * rows (render_jobs): they survive restarts, are taken under a lease (one instance runs each), are
 * tried three times in all, and then marked failed with their reason. Without Chromium the feature
 * says so once and stays idle; everything else works.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { format, messages } from '@sitehall/contracts';
import { parseContentCheck, riskRankOf } from '../content-check/report.js';
import { mergeRuntime, type RenderOutcome } from '../content-check/runtime.js';
import type { DB } from '../db/database.js';
import { now } from '../db/database.js';
import type { Actor } from '../domain/actor.js';
import { NotFound } from '../domain/errors.js';
import type { SiteRef } from '../domain/site-urls.js';
import type { Metrics } from '../metrics/metrics.js';
import { projectPolicy } from '../policies/project.js';
import { chromiumMissing, RenderBrowser } from '../render/browser.js';
import { type MemoryWatch, RenderMemoryWatchdog } from '../render/memory-watchdog.js';
import { emptyObservations, type Observations, RenderTimeout, renderPage } from '../render/render-page.js';
import type { Repositories } from '../repositories/index.js';
import type { ProjectsRepository } from '../repositories/projects.js';
import type { RenderJobRow, RenderJobsRepository } from '../repositories/render-jobs.js';
import type { BlobGate } from '../storage/blob-gate.js';
import { type BlobStore, StorageUnavailable } from '../storage/index.js';
import { isStoreOutage } from '../storage/s3-guard.js';
import type { PlatformSettings } from './settings.js';
import { routingOf } from './site-index.js';

/** Attempts in all: the first and two retries. */
export const RENDER_ATTEMPTS = 3;
/** Longer than a render can take (launch 20 s + load 10 s + picture 5 s): past it, the holder died. */
const LEASE_MS = 2 * 60_000;
const RETRY_AFTER_MS = 5_000;
export const THUMBNAIL_SIZES = {
  large: { width: 640, height: 400 },
  small: { width: 320, height: 200 },
} as const;

export interface RenderServiceDeps {
  db: DB;
  jobs: RenderJobsRepository;
  projects: ProjectsRepository;
  repos: Pick<Repositories, 'deployments' | 'deploymentFiles'>;
  store: BlobStore;
  /** Holds the pictures' hashes under a blob lease until the deployment references them. */
  gate: Pick<BlobGate<DB>, 'storing'>;
  settings: { get(): Promise<PlatformSettings> };
  metrics: Pick<Metrics, 'rendered'>;
  /** False: this instance queues renders but runs none (RENDER_WORKER=off). */
  enabled: boolean;
  chromiumPath: string;
  /** This instance (holds the leases of the jobs it runs). */
  holder: string;
  pollMs: number;
  /** The live address of a project's site (domain/site-urls.ts liveSiteAddress): where the page is opened. */
  siteAddress: (site: SiteRef) => string;
  loadTimeoutMs?: number;
  retryAfterMs?: number;
  /** The browser's main process's memory limit (render/memory-watchdog.ts; tests lower it). */
  browserMemoryLimitBytes?: number;
  log?: (level: 'info' | 'warn' | 'error', msg: string, detail?: Record<string, unknown>) => void;
}

/**
 * sharp, loaded with the first picture rather than at start (a server whose render worker is off,
 * or has nothing to render yet, never loads its native library: ~60 ms and ~25 MB).
 */
const loadSharp = () => import('sharp').then((m) => m.default);

/** A screenshot of one colour (nothing drawn) is a blank page. */
async function isBlank(png: Buffer): Promise<boolean> {
  const sharp = await loadSharp();
  const stats = await sharp(png).stats();
  return stats.channels.every((c) => c.stdev < 1.5);
}

async function thumbnails(png: Buffer): Promise<{ large: Buffer; small: Buffer }> {
  const sharp = await loadSharp();
  const resize = (size: { width: number; height: number }) =>
    sharp(png)
      .resize(size.width, size.height, { fit: 'cover', position: 'top' })
      .webp({ quality: 80 })
      .toBuffer();
  const [large, small] = await Promise.all([resize(THUMBNAIL_SIZES.large), resize(THUMBNAIL_SIZES.small)]);
  return { large, small };
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

export function createRenderService(deps: RenderServiceDeps) {
  const { db, jobs, projects, store } = deps;
  const { deployments, deploymentFiles } = deps.repos;
  let log: NonNullable<RenderServiceDeps['log']> = deps.log ?? (() => {});
  const missing = deps.enabled ? chromiumMissing(deps.chromiumPath) : 'RENDER_WORKER=off';
  const browser = new RenderBrowser(deps.chromiumPath, {
    pagesBeforeRestart: () => pagesBeforeRestart,
  });
  let pagesBeforeRestart = 50;
  const watchdog = new RenderMemoryWatchdog(
    deps.browserMemoryLimitBytes !== undefined ? { browserLimitBytes: deps.browserMemoryLimitBytes } : {},
  );
  const limitMb = Math.round(watchdog.limitBytes / (1024 * 1024));
  const browserLimitMb = Math.round(watchdog.browserLimitBytes / (1024 * 1024));
  let timer: NodeJS.Timeout | undefined;
  let stopped = true;
  const running = new Set<Promise<void>>();

  /**
   * Puts what a render that ended early found into the version's stored report (nothing when the
   * version has none): the memory stop or the failure's reason, with what was seen until then.
   */
  async function mergeIntoReport(
    trx: DB,
    deploymentId: number,
    seen: Observations,
    at: string,
    outcome: RenderOutcome,
  ): Promise<void> {
    const d = await deployments.byId(trx, deploymentId);
    const report = parseContentCheck(d?.content_check ?? null);
    if (!report) return;
    const merged = mergeRuntime(report, seen, false, at, outcome);
    await deployments.replaceContentCheck(trx, deploymentId, JSON.stringify(merged), riskRankOf(merged));
  }

  /**
   * A page whose renderer the watchdog ended for its memory: a risk finding in the version's
   * report, and the job failed at once with its reason (the page would only do it again).
   */
  async function settleMemoryExceeded(job: RenderJobRow, ms: number): Promise<void> {
    const at = now();
    await deps.db.transaction().execute(async (trx) => {
      await mergeIntoReport(trx, job.deployment_id, emptyObservations(), at, { memoryLimitMb: limitMb });
      await jobs.settle(
        trx,
        job.id,
        deps.holder,
        {
          status: 'failed',
          error: format(messages.render.memoryExceeded, { limit: limitMb }),
          durationMs: ms,
        },
        at,
      );
    });
  }

  /** A render that failed after its retries: a finding with its reason (docs/render.md). */
  async function recordFailure(deploymentId: number, seen: Observations, reason: string, at: string) {
    await db.transaction().execute((trx) => mergeIntoReport(trx, deploymentId, seen, at, { failed: reason }));
  }

  async function runJob(job: RenderJobRow): Promise<void> {
    const started = Date.now();
    let watch: MemoryWatch | undefined;
    // A read the page asked for that met a storage outage: Chromium reports it as a failed load
    // (or draws the page without it), so it is remembered here to tell what really happened.
    let storageError: unknown = null;
    const read = (sha256: string) =>
      store.read(sha256).catch((err: unknown) => {
        if (isStoreOutage(err)) storageError ??= err;
        throw err;
      });
    try {
      const d = await deployments.byId(db, job.deployment_id);
      if (!d) {
        // The version (or its project) was deleted meanwhile: nothing to render.
        await jobs.settle(db, job.id, deps.holder, { status: 'done', durationMs: 0 }, now());
        return;
      }
      const files = new Map((await deploymentFiles.ofDeployment(db, d.id)).map((f) => [f.path, f]));
      // Its _redirects, _headers and its project's switches as they are now: what a visitor meets.
      const facts = await deployments.servingFacts(db, d.id);
      const project = await deps.projects.byId(db, d.project_id);
      const settings = await deps.settings.get();
      const page = await browser.get();
      watch = watchdog.watch(page);
      const result = await renderPage(
        page,
        {
          address: deps.siteAddress({ id: d.project_id, name: project?.site_name ?? null }),
          entryFile: d.entry_file,
          files,
          routing: facts ? routingOf(facts) : null,
          read: (f) => read(f.sha256),
        },
        {
          allowPublicAssets: settings.render.allowPublicAssets,
          ...(deps.loadTimeoutMs ? { loadTimeoutMs: deps.loadTimeoutMs } : {}),
        },
      );
      if (storageError) throw new StorageUnavailable(storageError);
      const blank = await isBlank(result.screenshot);
      const pictures = await thumbnails(result.screenshot);
      const hashes = [sha256(pictures.large), sha256(pictures.small)];
      const ms = Date.now() - started;
      // Leased like an upload's blobs from before they are stored until the rows reference them:
      // the orphan sweep (here, on another instance, or at a restart after kill -9) skips them.
      await deps.gate.storing(hashes, async () => {
        const large = await store.put(Readable.from([pictures.large]));
        const small = await store.put(Readable.from([pictures.small]));
        const at = now();
        await deps.db.transaction().execute(async (trx) => {
          // Read again inside the transaction: an upload's check or another render may have written it.
          const fresh = await deployments.byId(trx, d.id);
          const report = parseContentCheck(fresh?.content_check ?? null);
          const merged = report ? mergeRuntime(report, result.observations, blank, at) : null;
          await jobs.saveResult(trx, d.id, {
            thumbnail: large.sha256,
            thumbnailSmall: small.sha256,
            contentCheck: merged ? JSON.stringify(merged) : null,
            contentRisk: merged ? riskRankOf(merged) : null,
            at,
          });
          await jobs.settle(trx, job.id, deps.holder, { status: 'done', durationMs: ms }, at);
        });
      });
      deps.metrics.rendered('done', ms);
    } catch (err) {
      const ms = Date.now() - started;
      deps.metrics.rendered('failed', ms);
      if (storageError || isStoreOutage(err)) {
        // Not the page's fault: queued again without counting the try, and taken once the store
        // answers (pump takes nothing while it is known down). The browser is fine as it is.
        const outcome = {
          status: 'queued',
          error: messages.render.storageUnavailable,
          runAfter: new Date(Date.now() + (deps.retryAfterMs ?? RETRY_AFTER_MS)).toISOString(),
          refund: true,
        } as const;
        await jobs.settle(db, job.id, deps.holder, outcome, now()).catch(() => {});
        log('warn', 'render postponed: storage unreachable', { deployment: job.deployment_id });
        return;
      }
      // A page that hung (or crashed the browser) leaves its renderer in an unknown state.
      await browser.close();
      // Its renderer was ended for its memory during this render (the page crashed or could not
      // be pictured; not the browser closed under it by another render's failure).
      const killed = watch?.killed();
      if (
        killed?.process === 'renderer' &&
        !/has been closed/i.test(String((err as Error)?.message ?? err))
      ) {
        await settleMemoryExceeded(job, ms).catch(() => {});
        log('warn', 'render ended: renderer memory over the limit', {
          deployment: job.deployment_id,
          rssMb: Math.round(killed.rssBytes / (1024 * 1024)),
          limitMb,
        });
        return;
      }
      // The browser's own process was ended for its memory: not this page's doing alone (every
      // render of the browser grows it), so tried again, in a new browser, like any failure.
      const reason =
        killed?.process === 'browser'
          ? format(messages.render.browserMemoryExceeded, { limit: browserLimitMb })
          : err instanceof RenderTimeout
            ? messages.render.timedOut
            : `${messages.render.failed}: ${String((err as Error)?.message ?? err).slice(0, 300)}`;
      const at = now();
      const outcome =
        job.attempts >= RENDER_ATTEMPTS
          ? ({ status: 'failed', error: reason, durationMs: ms } as const)
          : ({
              status: 'queued',
              error: reason,
              runAfter: new Date(
                Date.now() + (deps.retryAfterMs ?? RETRY_AFTER_MS) * job.attempts,
              ).toISOString(),
            } as const);
      await jobs.settle(db, job.id, deps.holder, outcome, at).catch(() => {});
      if (outcome.status === 'failed') {
        // A failed render is a finding, with what the page did until it failed (docs/render.md).
        const seen = err instanceof RenderTimeout ? err.observations : emptyObservations();
        await recordFailure(job.deployment_id, seen, reason, at).catch(() => {});
      }
      log('warn', 'render failed', { deployment: job.deployment_id, attempt: job.attempts, reason });
    } finally {
      watch?.stop();
    }
  }

  /** Takes due jobs up to the concurrency setting; each finished job looks for the next at once. */
  async function pump(): Promise<void> {
    if (stopped || missing) return;
    const settings = await deps.settings.get();
    pagesBeforeRestart = settings.render.pagesPerBrowser;
    // A store known to be down would fail every render: jobs wait, queued, until it answers.
    while (!stopped && !store.down && running.size < settings.render.concurrency) {
      const t = Date.now();
      const job = await jobs.take(
        db,
        deps.holder,
        new Date(t).toISOString(),
        new Date(t + LEASE_MS).toISOString(),
      );
      if (!job) return;
      const p: Promise<void> = runJob(job).finally(() => {
        running.delete(p);
        // Between renders the server pays nothing for playwright's async context.
        if (running.size === 0) browser.idle();
        void poke();
      });
      running.add(p);
    }
  }

  /** enqueueLive calls still reading or writing the queue. */
  const liveQueueing = new Set<Promise<void>>();
  let pumping: Promise<void> | null = null;
  const poke = (): Promise<void> => {
    pumping ??= pump()
      .catch((err: unknown) => log('error', 'render queue', { err }))
      .finally(() => {
        pumping = null;
      });
    return pumping;
  };

  return {
    /** Null when renders run here; otherwise why not (for the log). */
    unavailable: missing,
    /** The worker's state in /readyz's detail (public: no path, no reason). */
    state: !deps.enabled ? 'off' : missing ? 'chromium missing' : 'ok',

    /** Queues a render of a version; the worker picks it up in the background. */
    async enqueue(deploymentId: number, projectId: number): Promise<void> {
      await jobs.enqueue(db, deploymentId, projectId, now());
      void poke();
    },

    /**
     * A version went live (approval, rollback): its picture is made again for the showcase. Its
     * caller does not wait for it (context.ts liveChanged); idle() does.
     */
    enqueueLive(projectId: number): Promise<void> {
      const queueing = (async () => {
        const p = await projects.byId(db, projectId);
        if (!p?.live_deployment_id) return;
        const job = await jobs.byDeployment(db, p.live_deployment_id);
        if (job && (job.status === 'queued' || job.status === 'running')) return;
        await jobs.enqueue(db, p.live_deployment_id, p.id, now());
        void poke();
      })();
      liveQueueing.add(queueing);
      const settled = () => liveQueueing.delete(queueing);
      queueing.then(settled, settled);
      return queueing;
    },

    /** Admin: renders the project's newest version (and its live one, when different) again. */
    async rerender(projectId: number): Promise<{ queued: number }> {
      const p = await projects.byId(db, projectId);
      if (!p) throw new NotFound(messages.project.notFound);
      const ids = [...new Set([p.latest_deployment_id, p.live_deployment_id])].filter(
        (id): id is number => id !== null,
      );
      for (const id of ids) await jobs.enqueue(db, id, p.id, now());
      void poke();
      return { queued: ids.length };
    },

    /**
     * A rendered picture, for whoever may see it: anyone when it shows the live version of a
     * public project (cached publicly), else the project's owner or an admin (cached privately);
     * others get the same 404 as for a picture that does not exist.
     */
    async thumbnail(
      actor: Actor | null,
      sha256: string,
    ): Promise<{ body: Readable; size: number; shared: boolean }> {
      const owners = await jobs.thumbnailOwners(db, sha256);
      const shared = owners.some((o) => o.is_public === 1 && o.live_deployment_id === o.deployment_id);
      const allowed = shared || (actor !== null && owners.some((o) => projectPolicy.view(actor, o)));
      const stat = allowed ? await store.stat(sha256) : null;
      if (!stat) throw new NotFound(messages.render.thumbnailNotFound);
      return { body: await store.read(sha256), size: stat.size, shared };
    },

    /** Looks for due jobs now (a version was just stored). */
    poke(): void {
      void poke();
    },

    job: (deploymentId: number) => jobs.byDeployment(db, deploymentId),
    queueLength: () => jobs.pending(db),

    /** Starts polling for jobs (jobs queued by other instances, retries that came due). */
    /** Where the worker logs (the app's log, once it exists). */
    logTo(fn: NonNullable<RenderServiceDeps['log']>): void {
      log = fn;
    },

    start(): void {
      if (!stopped) return;
      stopped = false;
      if (missing) {
        if (deps.enabled)
          log('warn', `render worker off: ${missing}; sites get no pictures or runtime findings`);
        return;
      }
      timer = setInterval(() => void poke(), deps.pollMs);
      timer.unref();
      void poke();
    },

    /** Waits for renders in progress, then closes the browser. */
    async stop(): Promise<void> {
      stopped = true;
      clearInterval(timer);
      await pumping;
      await Promise.all(running);
      await browser.close();
    },

    /**
     * Resolves once no job is running or due here, and no live version's render is still being
     * queued (tests: a request that made a version live has answered before its render is queued).
     */
    async idle(): Promise<void> {
      for (;;) {
        await Promise.allSettled([...liveQueueing]);
        await poke();
        if (running.size === 0 && liveQueueing.size === 0) return;
        if (running.size > 0) await Promise.race(running);
      }
    },
  };
}
export type RenderService = ReturnType<typeof createRenderService>;
