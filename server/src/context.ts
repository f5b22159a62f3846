/** Everything a route needs, built once per app: config, database and the services over it. */
import { createRedisBus, localBus } from './cluster/invalidation.js';
import { createRedis } from './cluster/redis.js';
import { RedisCounterStore } from './cluster/redis-counter-store.js';
import type { Config } from './config.js';
import type { DatabaseHandle, DB } from './db/database.js';
import { leasedJobs, runHere } from './jobs/job-runner.js';
import type { SiteUrlOptions } from './presenters/urls.js';
import { createAdminRepository } from './repositories/admin.js';
import { createLeasesRepository } from './repositories/leases.js';
import { createProjectsRepository } from './repositories/projects.js';
import { createSessionsRepository } from './repositories/sessions.js';
import { createShowcaseRepository } from './repositories/showcase.js';
import { createUsersRepository } from './repositories/users.js';
import { SiteFileSource, SiteHosts } from './serve/index.js';
import { createAccountService } from './services/accounts.js';
import { createAuditService } from './services/audit.js';
import { BlobGate } from './services/blob-gate.js';
import { type CounterStore, createLoginThrottle, MemoryCounterStore } from './services/login-throttle.js';
import { Metrics } from './services/metrics.js';
import { PasswordHasher } from './services/passwords.js';
import { createPreviewService } from './services/previews.js';
import { createProjectService } from './services/projects.js';
import { createReviewQueue, createReviewService } from './services/review.js';
import { createSessionService } from './services/sessions.js';
import { createSettingsService } from './services/settings.js';
import { createSiteIndex } from './services/site-index.js';
import { createStatsService } from './services/stats.js';
import { createViewCounter } from './services/views.js';
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
  // Until the app's log exists a connection failure is not printed: startup then fails in words.
  let reportClusterError: (err: unknown) => void = () => {};
  redis?.on('error', (err) => reportClusterError(err));
  const audit = createAuditService(db);
  const sessions = createSessionService(createSessionsRepository(db));
  const hasher = new PasswordHasher(config.maxConcurrentHashes);
  const throttle = createLoginThrottle(
    opts.counters ?? (redis ? new RedisCounterStore(redis) : new MemoryCounterStore()),
  );
  const accounts = createAccountService({
    users: createUsersRepository(db, database.dialect),
    sessions,
    hasher,
    throttle,
    audit,
  });
  const settings = createSettingsService(db, {
    sitesOrigin: config.sitesOrigin,
    audit,
    onChange: () => bus.publish({ kind: 'settings' }),
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
  const siteIndex = createSiteIndex(db);
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
    },
  };
  const leases = createLeasesRepository(db, database.dialect);
  const gate = new BlobGate({
    leases,
    store,
    unreferenced: (hashes, trx) => projectsRepo.unreferenced(hashes, trx),
  });
  const projects = createProjectService({
    db,
    projects: projectsRepo,
    store,
    settings,
    audit,
    gate,
    dataDir: config.dataDir,
    urls,
    events,
    metrics,
    dialect: database.dialect,
  });
  const review = createReviewService({ db, projects: projectsRepo, audit, events });
  const adminRepo = createAdminRepository(db);
  const reviewQueue = createReviewQueue({
    projects: projectsRepo,
    admin: adminRepo,
    store,
    urls,
    projectDetail: projects.detail,
  });
  const stats = createStatsService({ admin: adminRepo, projects: projectsRepo });
  const siteFiles = new SiteFileSource(store, { onMemoryLookup: metrics.serveCacheLookup });
  const previews = createPreviewService(db, settings, audit, projectsRepo, urls);

  return {
    config,
    db,
    dialect: database.dialect,
    store,
    /** The shared Redis client (undefined without REDIS_URL). */
    redis,
    cluster: {
      bus,
      gate,
      leases,
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
    repositories: { projects: projectsRepo },
    showcase: createShowcaseRepository(db, database.dialect),
    services: {
      audit,
      sessions,
      hasher,
      throttle,
      accounts,
      settings,
      projects,
      review,
      reviewQueue,
      stats,
      siteIndex,
      siteFiles,
      views,
      previews,
    },
    /** Which host a request came to when sites have their own origin (SITES_ORIGIN). */
    siteHosts: new SiteHosts(urls),
  };
}
export type AppContext = ReturnType<typeof createContext>;
