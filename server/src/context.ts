/** Everything a route needs, built once per app: config, database and the services over it. */
import type { SiteIsolation } from '@sitehall/contracts';
import { createRedisBus, localBus } from './cluster/invalidation.js';
import { createRedis, firstAttempt, reportOutages } from './cluster/redis.js';
import { RedisCounterStore } from './cluster/redis-counter-store.js';
import type { Config } from './config.js';
import type { DatabaseHandle, DB } from './db/database.js';
import { ReceivingUploads, type StagingOptions } from './ingest/staging.js';
import { Instances } from './jobs/instances.js';
import { leasedJobs, runHere } from './jobs/job-runner.js';
import type { SiteUrlOptions } from './presenters/urls.js';
import { createApiTokensRepository } from './repositories/api-tokens.js';
import * as deploymentFiles from './repositories/deployment-files.js';
import { createDeploysRepository } from './repositories/deploys.js';
import { createLeasesRepository } from './repositories/leases.js';
import { createProjectsRepository } from './repositories/projects.js';
import { createRenderJobsRepository } from './repositories/render-jobs.js';
import { createSessionsRepository } from './repositories/sessions.js';
import { createUsersRepository } from './repositories/users.js';
import { SiteFileSource, SiteHosts } from './serve/index.js';
import { createAccountService } from './services/accounts.js';
import { createApiTokenService } from './services/api-tokens.js';
import { createAuditService } from './services/audit.js';
import { BlobGate } from './services/blob-gate.js';
import { createDeployService } from './services/deploys.js';
import { type CounterStore, createLoginThrottle, MemoryCounterStore } from './services/login-throttle.js';
import { Metrics } from './services/metrics.js';
import { PasswordHasher } from './services/passwords.js';
import { createPreviewService } from './services/previews.js';
import { createProjectService } from './services/projects.js';
import { createQuotaService } from './services/quota.js';
import { createRenderService } from './services/render.js';
import { createReviewQueue, createReviewService } from './services/review.js';
import { createSessionService } from './services/sessions.js';
import { createSettingsService } from './services/settings.js';
import { createShowcaseService } from './services/showcase.js';
import { createSiteIndex } from './services/site-index.js';
import { createStatsService } from './services/stats.js';
import { createViewCounter } from './services/views.js';
import { DiskSpace } from './storage/disk-space.js';
import { type BlobStore, LocalBlobStore } from './storage/index.js';

export interface ContextOptions {
  counters?: CounterStore;
  /** Required when STORAGE=s3 (see openBlobStore); the local store is made here otherwise. */
  store?: BlobStore;
  /** How often counted views are written (ms). */
  viewFlushMs?: number;
}

export function createContext(config: Config, database: DatabaseHandle, opts: ContextOptions = {}) {
  const db: DB = database.db;
  // Set only with REDIS_URL: several instances then share counters, invalidations and job leases.
  const redis = createRedis(config);
  // Until the app's log exists a connection failure is not printed; then once per outage.
  let reportClusterError: (err: unknown) => void = () => {};
  if (redis) reportOutages(redis, (err) => reportClusterError(err));
  // Whether other instances' changes reach this one now; caches keep entries briefly when not.
  const hearsChanges = () => bus.listening();
  const audit = createAuditService(db);
  const sessions = createSessionService(createSessionsRepository(db));
  const usersRepo = createUsersRepository(db, database.dialect);
  const apiTokens = createApiTokenService({ tokens: createApiTokensRepository(db), users: usersRepo, audit });
  const hasher = new PasswordHasher(config.maxConcurrentHashes);
  const throttle = createLoginThrottle(
    opts.counters ?? (redis ? new RedisCounterStore(redis) : new MemoryCounterStore()),
  );
  const accounts = createAccountService({
    users: usersRepo,
    sessions,
    hasher,
    throttle,
    audit,
    apiTokens,
  });
  const siteIsolation: SiteIsolation = {
    mode: config.sitesOrigin
      ? config.sitesSubdomains
        ? 'subdomains'
        : 'sites_origin'
      : config.sitesPort
        ? 'sites_port'
        : 'sandboxed',
    sites_port: config.sitesOrigin ? null : config.sitesPort || null,
  };
  const settings = createSettingsService(db, {
    sitesOrigin: config.sitesOrigin,
    siteIsolation,
    audit,
    onChange: () => bus.publish({ kind: 'settings' }),
    hearsChanges,
  });
  if (!opts.store && config.storage.kind !== 'local')
    throw new Error('STORAGE=s3: open the store first (openBlobStore)');
  const store = opts.store ?? LocalBlobStore.inDataDir(config.dataDir);
  const views = createViewCounter(db, { redis });
  const metrics = new Metrics({
    exposed: config.metrics.port !== undefined || config.metrics.token !== undefined,
    lastViewFlushAt: views.lastFlushAt,
  });
  const urls: SiteUrlOptions = { sitesOrigin: config.sitesOrigin, sitesSubdomains: config.sitesSubdomains };
  const siteIndex = createSiteIndex(db, { hearsChanges });
  const projectsRepo = createProjectsRepository(db, database.dialect);
  const bus = redis
    ? createRedisBus(redis, config.redisPrefix, {
        apply: (e) => (e.kind === 'live' ? siteIndex.invalidate(e.projectId) : settings.invalidate()),
        resync: () => {
          siteIndex.invalidateAll();
          settings.invalidate();
        },
        onError: (err) => reportClusterError(err),
      })
    : localBus;
  const events = {
    liveChanged: (id: number) => {
      siteIndex.invalidate(id);
      bus.publish({ kind: 'live', projectId: id });
      // A version that goes live gets its picture made again (docs/render.md): the one place
      // every live change (approval, rollback, takedown, visibility) passes through.
      render.enqueueLive(id).catch(() => undefined);
    },
    versionStored: () => render.poke(),
  };
  const leases = createLeasesRepository(db, database.dialect);
  // This process's id names its staging folder and blob leases (docs/decisions.md "Leftover sweep").
  const instances = new Instances(leases);
  const receiving = new ReceivingUploads();
  const gate = new BlobGate({
    leases,
    store,
    unreferenced: (hashes, trx) => deploymentFiles.unreferenced(trx, hashes),
    owner: instances.self,
  });
  const renderJobs = createRenderJobsRepository(db);
  const render = createRenderService({
    db,
    jobs: renderJobs,
    projects: projectsRepo,
    store,
    gate,
    settings,
    metrics,
    enabled: config.render.enabled,
    chromiumPath: config.render.chromiumPath,
    holder: instances.self,
    pollMs: config.render.pollMs,
    loadTimeoutMs: config.render.loadTimeoutMs,
    retryAfterMs: config.render.retryAfterMs,
  });
  metrics.renderQueueLength = () => renderJobs.pending();
  const quota = createQuotaService({ db, users: usersRepo, settings });
  const projects = createProjectService({
    db,
    projects: projectsRepo,
    store,
    settings,
    quota,
    audit,
    gate,
    urls,
    events,
    metrics,
    dialect: database.dialect,
    renders: renderJobs,
  });
  const deploys = createDeployService({
    deploys: createDeploysRepository(db),
    leases,
    store,
    gate,
    settings,
    quota,
    projects,
    dataDir: config.dataDir,
    owner: instances.self,
  });
  const review = createReviewService({ db, projects: projectsRepo, audit, events });
  const reviewQueue = createReviewQueue({
    db,
    projects: projectsRepo,
    store,
    urls,
    projectDetail: projects.detail,
    renderJobs,
  });
  const stats = createStatsService({
    db,
    projects: projectsRepo,
    users: usersRepo,
    siteIsolation,
  });
  const siteFiles = new SiteFileSource(store, { onMemoryLookup: metrics.serveCacheLookup });
  const previews = createPreviewService(db, settings, audit, projectsRepo, urls);

  return {
    config,
    db,
    dialect: database.dialect,
    store,
    /** The shared Redis client (undefined without REDIS_URL). */
    redis,
    /** Free space on DATA_DIR's disk against MIN_FREE_DISK_BYTES (/readyz). */
    diskSpace: new DiskSpace(config.dataDir, config.minFreeDiskBytes),
    /** Uploads still receiving their body (shutdown answers them after its grace period). */
    receiving,
    /** Where and how upload bodies are received (instance folder, idle limit, shutdown). */
    staging: {
      dataDir: config.dataDir,
      owner: instances.self,
      idleTimeoutMs: config.uploadIdleTimeoutMs,
      receiving,
    } satisfies StagingOptions,
    cluster: {
      bus,
      /**
       * Settles once both Redis connections are up (subscribed), or once reaching Redis has failed
       * (the instance then runs without it, and joins when it answers).
       */
      ready: Promise.all([bus.ready, redis ? firstAttempt(redis) : undefined]).then(() => {}),
      gate,
      leases,
      instances,
      /** One process runs every job; with REDIS_URL, jobs that need one instance go by lease. */
      jobs: redis ? leasedJobs(leases) : runHere,
      /** Several instances may share DATA_DIR and the blob store. */
      shared: redis !== undefined,
      /** Where Redis connection errors are reported (the app's log, once it exists). */
      reportErrorsTo(fn: (err: unknown) => void) {
        reportClusterError = fn;
      },
      async close() {
        await bus.close();
        await redis?.quit().catch(() => redis.disconnect());
      },
    },
    urls,
    metrics,
    repositories: { projects: projectsRepo, renderJobs },
    showcase: createShowcaseService(db, database.dialect),
    services: {
      audit,
      sessions,
      apiTokens,
      hasher,
      throttle,
      accounts,
      settings,
      quota,
      projects,
      deploys,
      review,
      reviewQueue,
      stats,
      siteIndex,
      siteFiles,
      views,
      previews,
      render,
    },
    /** Which host a request came to when sites have their own origin (SITES_ORIGIN). */
    siteHosts: new SiteHosts({ ...urls, sitesPort: config.sitesPort }),
  };
}
export type AppContext = ReturnType<typeof createContext>;
