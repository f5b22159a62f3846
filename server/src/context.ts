/** Everything a route needs, built once per app: config, database and the services over it. */
import type { SiteIsolation } from '@sitehall/contracts';
import { createRedisBus, localBus } from './cluster/invalidation.js';
import { createRedis, firstAttempt, reportOutages } from './cluster/redis.js';
import { RedisCounterStore } from './cluster/redis-counter-store.js';
import type { Config } from './config.js';
import type { DatabaseHandle, DB } from './db/database.js';
import { createAuditBudget } from './domain/audit-budget.js';
import { UNHEARD_MAX_AGE_MS } from './domain/cache-lifetime.js';
import { type CounterStore, createLoginThrottle, MemoryCounterStore } from './domain/login-throttle.js';
import { PasswordHasher } from './domain/passwords.js';
import { liveSiteAddress, type SiteUrlOptions, sitesAtHostRoot } from './domain/site-urls.js';
import { ReceivingUploads, type StagingOptions } from './ingest/staging.js';
import { Instances } from './jobs/instances.js';
import { leasedJobs, runHere } from './jobs/job-runner.js';
import { Metrics } from './metrics/metrics.js';
import { createRepositories } from './repositories/index.js';
import type { LeasesRepository } from './repositories/leases.js';
import { ownBloom } from './search/bloom.js';
import { CustomDomainHosts, SiteFileSource, SiteHosts } from './serve/index.js';
import { createAccountService } from './services/accounts.js';
import { createApiTokenService } from './services/api-tokens.js';
import { createAuditService } from './services/audit.js';
import { createCustomDomainService } from './services/custom-domains.js';
import { createDeployService } from './services/deploys.js';
import { createFileDiff } from './services/file-diff.js';
import { createNotificationService } from './services/notifications.js';
import { createPreviewService } from './services/previews.js';
import { createProjectService } from './services/projects.js';
import { createQuotaService } from './services/quota.js';
import { createRenderService } from './services/render.js';
import { createRetentionService } from './services/retention.js';
import { createReviewQueue, createReviewService } from './services/review.js';
import { createSessionService } from './services/sessions.js';
import { createSettingsService } from './services/settings.js';
import { createShowcaseService } from './services/showcase.js';
import { createSiteIndex } from './services/site-index.js';
import { createSiteNameService } from './services/site-names.js';
import { createStatsService } from './services/stats.js';
import { createUploadService } from './services/uploads.js';
import { createViewCounter } from './services/views.js';
import { BlobGate, type BlobLeases } from './storage/blob-gate.js';
import { DiskSpace } from './storage/disk-space.js';
import { type BlobStore, LocalBlobStore } from './storage/index.js';

export interface ContextOptions {
  counters?: CounterStore;
  /** Required when STORAGE=s3 (see openBlobStore); the local store is made here otherwise. */
  store?: BlobStore;
  /** How often counted views are written (ms). */
  viewFlushMs?: number;
}

/** How sites are kept apart from the app, as the settings page and the public config tell it. */
export function siteIsolationOf(config: Config): SiteIsolation {
  return {
    mode: config.sitesOrigin
      ? config.sitesSubdomains
        ? 'subdomains'
        : 'sites_origin'
      : config.sitesPort
        ? 'sites_port'
        : 'sandboxed',
    sites_port: config.sitesOrigin ? null : config.sitesPort || null,
  };
}

/** The caches another instance's change makes stale: set once they exist (createContext). */
interface StaleCaches {
  live(projectId: number): void;
  /** Every project's: messages may have been missed (a resubscribe). */
  allLive(): void;
  settings(): void;
  domains(): void;
}

/**
 * The link to the other instances (set only with REDIS_URL): the shared Redis client and the
 * invalidation bus. The bus tells `caches` what another instance changed.
 */
function createClusterLink(config: Config, caches: StaleCaches) {
  const redis = createRedis(config);
  // Until the app's log exists a connection failure is not printed; then once per outage.
  let reportClusterError: (err: unknown) => void = () => {};
  if (redis) reportOutages(redis, (err) => reportClusterError(err));
  const bus = redis
    ? createRedisBus(redis, config.redisPrefix, {
        apply: (e) =>
          e.kind === 'live'
            ? caches.live(e.projectId)
            : e.kind === 'domains'
              ? caches.domains()
              : caches.settings(),
        resync: () => {
          caches.allLive();
          caches.settings();
          caches.domains();
        },
        onError: (err) => reportClusterError(err),
      })
    : localBus;
  return {
    redis,
    bus,
    reportErrorsTo(fn: (err: unknown) => void) {
      reportClusterError = fn;
    },
  };
}

/** The blob gate's view of the leases repository (storage/blob-gate.ts), on this database. */
export function blobLeasesOn(db: DB, leases: LeasesRepository): BlobLeases<DB> {
  return {
    leaseBlobs: (uploadId, hashes, at) => leases.leaseBlobs(db, uploadId, hashes, at),
    releaseBlobs: (uploadId) => leases.releaseBlobs(db, uploadId),
    dropBlobLeasesOf: (uploadIds) => leases.dropBlobLeasesOf(db, uploadIds),
    leased: (hashes, trx) => leases.leased(trx, hashes),
    deletingBlobs: (work) => leases.deletingBlobs(db, work),
  };
}

export function createContext(config: Config, database: DatabaseHandle, opts: ContextOptions = {}) {
  const db: DB = database.db;
  const { dialect } = database;
  const repos = createRepositories(dialect, ownBloom);
  const stale: StaleCaches = { live: () => {}, allLive: () => {}, settings: () => {}, domains: () => {} };
  const link = createClusterLink(config, stale);
  const { redis, bus } = link;
  // Whether other instances' changes reach this one now; caches keep entries briefly when not.
  const hearsChanges = () => bus.listening();
  const audit = createAuditService(db, repos.audit);
  const sessions = createSessionService(db, repos.sessions);
  const usersRepo = repos.users;
  const apiTokens = createApiTokenService({ db, tokens: repos.apiTokens, users: usersRepo, audit });
  const hasher = new PasswordHasher(config.maxConcurrentHashes);
  const counters = opts.counters ?? (redis ? new RedisCounterStore(redis) : new MemoryCounterStore());
  const throttle = createLoginThrottle(counters);
  const auditBudget = createAuditBudget(counters);
  const accounts = createAccountService({
    db,
    users: usersRepo,
    sessions,
    hasher,
    throttle,
    audit,
    apiTokens,
  });
  const siteIsolation = siteIsolationOf(config);
  const settings = createSettingsService(db, {
    sitesOrigin: config.sitesOrigin,
    siteIsolation,
    mailEnabled: config.mail.smtpUrl !== undefined,
    audit,
    table: repos.settings,
    onChange: async () => {
      bus.publish({ kind: 'settings' });
      // The approval setting decides which domains are served.
      await customDomains.reload().catch(() => undefined);
    },
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
  // Where root-absolute links are the site's own files: the content check's notes follow it.
  const sitesAtRoot = sitesAtHostRoot(config);
  const siteIndex = createSiteIndex(db, { hearsChanges });
  const customDomainHosts = new CustomDomainHosts();
  const customDomains = createCustomDomainService({
    db,
    repo: repos.customDomains,
    settings,
    audit,
    visible: (actor, id) => projects.visible(actor, id),
    isLive: async (id) => (await siteIndex.liveOf(id)) !== null,
    hosts: customDomainHosts,
    sitesOrigin: config.sitesOrigin,
    publicUrl: config.mail.publicUrl,
    sitesSubdomains: config.sitesSubdomains,
    dnsResolvers: config.dnsResolvers,
    publish: () => bus.publish({ kind: 'domains' }),
  });
  stale.live = (id) => {
    siteIndex.invalidate(id);
    customDomains.projectChanged(id);
  };
  stale.allLive = () => siteIndex.invalidateAll();
  stale.settings = () => {
    settings.invalidate();
    customDomains.reload().catch(() => undefined);
  };
  stale.domains = () => {
    customDomains.reload().catch(() => undefined);
  };
  // The served domains are read by every request without a lookup to age, so while this instance
  // hears no changes (Redis away) they are read again every few seconds instead: a domain removed
  // on another instance stops being served here within the short lifetime, as a live pointer does
  // (docs/decisions/faults.md "Redis outages").
  const unheardDomains = redis
    ? setInterval(() => {
        if (!hearsChanges()) customDomains.reload().catch(() => undefined);
      }, UNHEARD_MAX_AGE_MS).unref()
    : undefined;
  const projectsRepo = repos.projects;
  const leases = repos.leases;
  // This process's id names its staging folder and blob leases (docs/decisions/instances.md "Leftover sweep").
  const instances = new Instances(db, leases);
  const receiving = new ReceivingUploads();
  const gate = new BlobGate<DB>({
    leases: blobLeasesOn(db, leases),
    store,
    unreferenced: (hashes, trx) => repos.deploymentFiles.unreferenced(trx, hashes),
    owner: instances.self,
  });
  const renderJobs = repos.renderJobs;
  const render = createRenderService({
    db,
    repos,
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
    siteAddress: (site) =>
      liveSiteAddress(site, {
        ...(config.sitesOrigin ? { sitesOrigin: config.sitesOrigin } : {}),
        sitesSubdomains: config.sitesSubdomains,
        publicUrl: config.mail.publicUrl ?? `http://localhost:${config.port}`,
        sitesPort: config.sitesPort || null,
      }),
    loadTimeoutMs: config.render.loadTimeoutMs,
    retryAfterMs: config.render.retryAfterMs,
    ...(config.render.browserMemoryLimitBytes !== undefined
      ? { browserMemoryLimitBytes: config.render.browserMemoryLimitBytes }
      : {}),
  });
  metrics.renderQueueLength = () => renderJobs.pending(db);
  const events = {
    liveChanged: (id: number) => {
      siteIndex.invalidate(id);
      customDomains.projectChanged(id);
      bus.publish({ kind: 'live', projectId: id });
      // A version that goes live gets its picture made again (docs/render.md): the one place
      // every live change (approval, rollback, takedown, visibility) passes through.
      render.enqueueLive(id).catch(() => undefined);
    },
    versionStored: () => render.poke(),
    renamed: (id: number) => {
      siteIndex.invalidate(id);
      bus.publish({ kind: 'live', projectId: id });
    },
  };
  const siteNames = createSiteNameService({ db, dialect, repos });
  const quota = createQuotaService({ db, repos, settings });
  const notifications = createNotificationService(db, repos, { mail: config.mail, holder: instances.self });
  const projects = createProjectService({
    db,
    repos,
    store,
    quota,
    audit,
    gate,
    events,
    siteNames,
    renders: renderJobs,
    sitesAtRoot,
    notifications,
  });
  const uploads = createUploadService({
    db,
    projects: projectsRepo,
    repos,
    store,
    settings,
    quota,
    audit,
    gate,
    urls,
    sitesAtRoot,
    events,
    metrics,
    dialect,
    siteNames,
    renders: renderJobs,
    lookup: projects,
    notifications,
  });
  const deploys = createDeployService({
    db,
    deploys: repos.deploys,
    leases,
    store,
    gate,
    settings,
    quota,
    uploads,
    dataDir: config.dataDir,
    owner: instances.self,
  });
  const review = createReviewService({ db, repos, audit, events, notifications });
  const reviewQueue = createReviewQueue({
    db,
    repos,
    store,
    urls,
    sitesAtRoot,
    projectDetail: projects.detail,
  });
  const fileDiff = createFileDiff({ db, repos, store });
  const stats = createStatsService({
    db,
    repos,
    siteIsolation,
  });
  const siteFiles = new SiteFileSource(store, { onMemoryLookup: metrics.serveCacheLookup });
  const previews = createPreviewService(db, settings, audit, repos, urls);

  return {
    config,
    db,
    dialect,
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
      jobs: redis ? leasedJobs(db, leases) : runHere,
      /** Several instances may share DATA_DIR and the blob store. */
      shared: redis !== undefined,
      /** Where Redis connection errors are reported (the app's log, once it exists). */
      reportErrorsTo: link.reportErrorsTo,
      async close() {
        clearInterval(unheardDomains);
        await bus.close();
        await redis?.quit().catch(() => redis.disconnect());
      },
    },
    urls,
    metrics,
    repositories: repos,
    showcase: createShowcaseService(db, dialect),
    services: {
      audit,
      sessions,
      apiTokens,
      hasher,
      throttle,
      auditBudget,
      accounts,
      settings,
      quota,
      projects,
      uploads,
      deploys,
      review,
      reviewQueue,
      fileDiff,
      stats,
      siteIndex,
      siteFiles,
      views,
      previews,
      render,
      notifications,
      siteNames,
      customDomains,
      retention: createRetentionService({ db, repos }),
    },
    /** Which host a request came to when sites have their own origin (SITES_ORIGIN). */
    siteHosts: new SiteHosts({
      ...urls,
      sitesPort: config.sitesPort,
      customDomains: customDomainHosts,
      appPort: config.port,
      ...(config.mail.publicUrl ? { publicUrl: config.mail.publicUrl } : {}),
    }),
  };
}
export type AppContext = ReturnType<typeof createContext>;
