/** Builds the Fastify instance, used by main.ts and by the tests. */

import type http from 'node:http';
import fastifyMultipart from '@fastify/multipart';
import fastifyRateLimit from '@fastify/rate-limit';
import { messages } from '@sitehall/contracts';
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
  type RawRequestDefaultExpression,
} from 'fastify';
import pinoPretty from 'pino-pretty';
import { type Config, ConfigError } from './config.js';
import { type AppContext, type ContextOptions, createContext } from './context.js';
import { type DatabaseHandle, migrateToLatest, openDatabase } from './db/database.js';
import { DatabaseUnavailable, isDatabaseUnavailable, type PoolEvent } from './db/postgres-pool.js';
import { ServiceUnavailable } from './domain/errors.js';
import { registerAccess } from './http/access.js';
import { answerClientError, MAX_HEAD_BYTES, refuseLargeHead } from './http/client-errors.js';
import { assertEndpointTable } from './http/endpoint-routes.js';
import { registerErrorHandling } from './http/errors.js';
import { hstsHeader, registerAppHeaders } from './http/headers.js';
import { type Pingable, registerHealth } from './http/health.js';
import { registerMetrics } from './http/metrics.js';
import { apiDocsRoutes } from './http/openapi.js';
import { registerWebApp } from './http/web-app.js';
import { sweepLeftovers } from './jobs/sweep.js';
import { startTimedJobs } from './jobs/timed.js';
import { adminRoutes } from './routes/admin.js';
import { authRoutes } from './routes/auth.js';
import { configRoutes } from './routes/config.js';
import { deployRoutes } from './routes/deploys.js';
import { previewRoutes } from './routes/preview.js';
import { projectRoutes } from './routes/projects.js';
import { showcaseRoutes } from './routes/showcase.js';
import { registerSitesHostGuard, siteRoutes } from './routes/sites.js';
import { thumbnailRoutes } from './routes/thumbnails.js';
import { userRoutes } from './routes/users.js';
import { createSiteFastPath, type SiteFastPath } from './serve/fast-path.js';
import { registerSiteSecurityHeaders, type SiteIsolation, siteHeadersForUrl } from './serve/index.js';
import { type SiteServerState, siteServerFactory } from './serve/site-server.js';
import { diskFullAtStart } from './storage/disk-space.js';
import { type BlobStore, openBlobStore, StorageUnavailable } from './storage/index.js';

export interface BuiltApp {
  app: FastifyInstance;
  ctx: AppContext;
  database: DatabaseHandle;
  /** The /sites fast path, when on (tests check it is taken); null with SITES_FAST_PATH=off. */
  fastPath: SiteFastPath | null;
  /**
   * 'on'; 'off' (SITES_FAST_PATH=off); 'degraded': Node's internals the connection fast path needs
   * are missing, so only the request-level path runs (said in the log at start).
   */
  fastPathStatus: FastPathStatus;
  /**
   * Settles once the database is migrated and the leftovers swept: before buildApp returns
   * normally; later when PostgreSQL was unreachable at start (the app then answers 503 until it).
   */
  startup: Promise<void>;
  /**
   * The sites port's server (config.sitesPort), not yet listening (listenSitesPort): the same
   * handlers as the app's, answering only what its guard lets through. Null without a sites port.
   */
  sitesServer: http.Server | null;
}

export type FastPathStatus = 'on' | 'off' | 'degraded';

/** Between attempts to reach the database at start: doubling, up to the cap. */
const STARTUP_RETRY_FIRST_MS = 250;
const STARTUP_RETRY_MAX_MS = 5_000;
/** How long a start waits for the Redis subscription before going on without it (not ready). */
const SUBSCRIBE_WAIT_MS = 2_000;

/** Fastify's request log lines, at debug instead of info (errors stay errors). */
class RequestsAtDebug extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    if (this.isLogDisabled(request)) return;
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (this.isLogDisabled(request)) return;
    if (error)
      reply.log.error({ res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else reply.log.debug({ res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}

/** Where the log goes: a readable stream (pino-pretty) for a terminal, the JSON stream otherwise. */
function logDestination(
  format: Config['logFormat'],
  stream: NodeJS.WritableStream | undefined,
): { stream?: NodeJS.WritableStream } {
  if (format === 'json') return stream ? { stream } : {};
  return {
    stream: pinoPretty({
      destination: stream ?? 1,
      colorize: !stream && process.stdout.isTTY === true,
      translateTime: 'SYS:HH:MM:ss',
      ignore: 'pid,hostname',
      singleLine: true,
      sync: true,
    }),
  };
}

export async function buildApp(
  config: Config,
  opts: {
    logger?: boolean;
    redis?: Pingable;
    logStream?: NodeJS.WritableStream;
    /** Tests only: takes Node internals away from each server made (serve/site-server.ts). */
    alterServer?: (server: http.Server) => void;
  } & ContextOptions = {},
): Promise<BuiltApp> {
  // A store passed in is its caller's to close; one opened here is closed with the app.
  // A bucket that can't be reached starts the instance anyway, known down (storage/index.ts).
  const store = opts.store ?? (await openBlobStore(config, { whenUnreachable: 'start' }));
  const ownStore = opts.store ? null : store;
  let database: DatabaseHandle;
  try {
    // Closed until migrated: a query before that is a 503, not a missing table.
    database = openDatabase(config.database, { timeouts: config.databaseTimeouts, closed: true });
  } catch (err) {
    await ownStore?.close();
    throw await startupError(err, config.dataDir);
  }
  const ctx = createContext(config, database, { ...opts, store });
  let log: (level: 'info' | 'warn' | 'error', msg: string, err?: unknown) => void = () => {};
  const sweep = (cooldownMs?: number, keepStagedFrom?: number) =>
    sweepLeftovers({
      ...ctx.cluster,
      store: ctx.store,
      dataDir: config.dataDir,
      metrics: ctx.metrics,
      expireDeploys: () => ctx.services.deploys.expire(),
      dropRenderJobs: () => ctx.repositories.renderJobs.dropOfDeleted(),
      ...(cooldownMs ? { cooldownMs } : {}),
      ...(keepStagedFrom !== undefined ? { keepStagedFrom } : {}),
    });
  /** Migrations, then the sweep of whatever a crash left half-made, before requests use the database. */
  const prepare = async () => {
    await migrateToLatest(database);
    database.pool?.open();
    // An upload that began once the database opened is not a leftover (the delayed start).
    const openedAt = Date.now();
    // Seen alive before it makes anything a sweep elsewhere could take for a dead one's leftovers.
    await ctx.cluster.instances.heartbeat();
    try {
      await sweep(undefined, openedAt);
    } catch (err) {
      // The bucket is away: its part of the sweep waits for the next round (jobs/timed.ts).
      if (!(err instanceof StorageUnavailable)) throw err;
    }
  };
  let reachedAtStart = true;
  try {
    try {
      await prepare();
    } catch (err) {
      // PostgreSQL unreachable: start anyway (sites in no need of it are served, the rest is 503)
      // and keep trying below. Anything else (a broken migration, a full disk, a bucket that can't
      // be used) stops the start.
      if (!(err instanceof DatabaseUnavailable)) throw err;
      reachedAtStart = false;
    }
    // Subscribed before the first request when Redis answers, so no change made elsewhere after it
    // goes unheard; without it the instance starts, not ready, and subscribes once Redis is back.
    await Promise.race([ctx.cluster.ready, delay(SUBSCRIBE_WAIT_MS)]);
  } catch (err) {
    await ctx.cluster.close();
    await database.close();
    await ownStore?.close();
    throw await startupError(err, config.dataDir);
  }
  let closing = false;
  const startup = reachedAtStart
    ? Promise.resolve()
    : (async () => {
        let wait = STARTUP_RETRY_FIRST_MS;
        for (;;) {
          await delay(wait);
          if (closing) return;
          try {
            await prepare();
            log('info', 'database reached: migrated, ready');
            return;
          } catch (err) {
            if (!(err instanceof DatabaseUnavailable)) {
              log('error', 'database startup failed', err);
              throw err;
            }
            wait = Math.min(wait * 2, STARTUP_RETRY_MAX_MS);
          }
        }
      })();
  // Reported in the log; callers that wait for it (main.ts) see the failure too.
  startup.catch(() => {});
  const isolation: SiteIsolation = ctx.siteHosts.separate ? 'separate-origin' : 'sandboxed';
  const hsts = hstsHeader(config.hsts);
  // A sites origin the operator gave as https:// gets HSTS on every answer (browsers ignore it over
  // plain HTTP), so the fast path's prepared headers can carry it. On one host, the app's own
  // pages set the host's policy (docs/decisions.md "HTTP").
  const siteExtraHeaders: Record<string, string> =
    hsts && config.sitesOrigin?.startsWith('https://') ? { 'strict-transport-security': hsts } : {};
  // Made once: the answers kept per file are kept per header set (serve/site-answer.ts).
  const siteHeaders = {
    site: { ...siteHeadersForUrl('/sites/', isolation)!, ...siteExtraHeaders },
    preview: { ...siteHeadersForUrl('/preview/', isolation)!, ...siteExtraHeaders },
  };
  // Hot files of /sites answered before Fastify (serve/fast-path.ts); with a sites origin, on
  // the sites host only (the app host's redirects are the route's). SITES_FAST_PATH=off: none.
  const fastPath = config.sitesFastPath
    ? createSiteFastPath({
        peekLive: (id) => ctx.services.siteIndex.peekLive(id),
        source: ctx.services.siteFiles,
        countView: (id, meta) => ctx.services.views.count(id, meta),
        trustProxy: config.trustProxy,
        siteHeaders: siteHeaders.site,
        ...(ctx.siteHosts.separate ? { hosts: ctx.siteHosts } : {}),
        // Counted under the pattern of the route that would otherwise have answered.
        ...(ctx.metrics.exposed
          ? { onServed: (status, ms) => ctx.metrics.observeRequest('/sites/*', 'GET', status, ms) }
          : {}),
      })
    : null;
  const serverState: SiteServerState = { connectionsMissing: null };

  let sitesServer: http.Server | null = null;
  const app = Fastify({
    logger:
      opts.logger === false
        ? false
        : {
            level: config.logLevel,
            // Tokens and passwords never reach the logs.
            redact: {
              paths: ['req.headers.authorization', 'req.headers.cookie', 'body.password'],
              remove: true,
            },
            // Readable lines on a terminal, JSON otherwise; tests read the log from a stream of their own.
            ...logDestination(config.logFormat, opts.logStream),
          },
    // Requests are logged at debug, not at info: a terminal at the default level shows what the
    // server does, not every file a visitor asks for.
    logController: new RequestsAtDebug(),
    trustProxy: config.trustProxy,
    requestTimeout: config.timeouts.request,
    connectionTimeout: config.timeouts.idle,
    keepAliveTimeout: config.timeouts.keepAlive,
    // Room for a cookie jar a site filled (refuseLargeHead keeps everything else at 16 KB).
    http: { headersTimeout: config.timeouts.headers, maxHeaderSize: MAX_HEAD_BYTES },
    bodyLimit: 1024 * 1024,
    // Client route paths may hold Chinese; ids are validated by each route.
    routerOptions: { maxParamLength: 500 },
    return503OnClosing: true,
    serverFactory: siteServerFactory(
      {
        fastPath,
        refuse: refuseLargeHead,
        twin: (make) => {
          if (config.sitesPort) sitesServer = make((req, res) => answerOffSitesHost(ctx, req, res));
        },
        ...(opts.alterServer ? { alterServer: opts.alterServer } : {}),
      },
      serverState,
    ),
    // With SITES_SUBDOMAINS, p{id}.{sites host}/x is served as /sites/{id}/x.
    ...(config.sitesSubdomains && config.sitesOrigin
      ? { rewriteUrl: (req: RawRequestDefaultExpression) => ctx.siteHosts.rewriteUrl(req) }
      : {}),
    // Requests the HTTP parser refuses (malformed, too large, timed out): the envelope in Chinese.
    clientErrorHandler: answerClientError,
    // Fastify answers URLs it can't decode without running hooks: give those the envelope and,
    // under /sites and /preview, the sandbox headers too.
    frameworkErrors(error, request, rawReply) {
      const reply = rawReply as unknown as FastifyReply;
      const site = siteHeadersForUrl(request.url, isolation);
      if (site)
        return reply
          .code(400)
          .headers({ ...site, ...siteExtraHeaders })
          .type('text/plain; charset=utf-8')
          .send('400 无效的地址');
      return reply
        .code(error.statusCode ?? 400)
        .type('application/json; charset=utf-8')
        .send({ success: false, message: messages.common.badRequest });
    },
  });

  const fastPathStatus: FastPathStatus = !fastPath
    ? 'off'
    : serverState.connectionsMissing
      ? 'degraded'
      : 'on';
  if (serverState.connectionsMissing)
    app.log.warn(
      `connection fast path off: ${serverState.connectionsMissing} (this Node version changed what it relies on);` +
        ' hot /sites files are answered from Node’s request event instead (serve/fast-connections.ts)',
    );
  ctx.cluster.reportErrorsTo((err) => app.log.warn({ err }, 'redis'));
  ctx.services.render.logTo((level, msg, detail) => app.log[level](detail ?? {}, msg));
  // Renders begin once the database is migrated (at once, or when PostgreSQL is back).
  startup.then(
    () => {
      if (!closing) ctx.services.render.start();
    },
    () => {},
  );
  log = (level, msg, err) => app.log[level](err === undefined ? {} : { err }, msg);
  database.pool?.reportTo((event: PoolEvent) => {
    if (event.kind === 'down')
      app.log.error(
        { err: event.err },
        'database unreachable: requests that need it get 503 until it is back',
      );
    else if (event.kind === 'up') app.log.info('database reachable again');
    else app.log.warn({ err: event.err }, 'database connection lost');
  });
  // An S3 store says once when it becomes unreachable and once when it is back (storage/s3-guard.ts).
  (ctx.store as BlobStore).reportTo?.((event) => {
    if (event.kind === 'down')
      app.log.error(
        { err: event.err },
        'storage unreachable: requests that need it get 503 until it is back',
      );
    else app.log.info('storage reachable again');
  });
  if ((ctx.store as BlobStore).down)
    app.log.error('storage unreachable at start: serving what needs no storage, using it once it answers');
  if (!reachedAtStart)
    app.log.error('database unreachable at start: serving what needs no database, retrying until it answers');
  if (ctx.redis && !ctx.cluster.bus.listening())
    app.log.warn('redis: cannot be reached; started without it, it joins once Redis answers');
  registerErrorHandling(app, {
    onDiskFull: () => {
      ctx.metrics.diskFull();
      ctx.diskSpace.forget();
    },
  });
  registerMetrics(app, ctx.metrics, config.metrics);
  registerAppHeaders(app, ctx.siteHosts.frameSources(), hsts);
  registerSiteSecurityHeaders(app, isolation, siteExtraHeaders);
  registerSitesHostGuard(app, ctx);
  registerAccess(app, ctx.services.sessions, ctx.services.apiTokens);

  await app.register(
    async (api) => {
      await api.register(fastifyRateLimit, {
        max: 600,
        timeWindow: 60_000,
        // With several instances the counts live in Redis; if it is unreachable, requests pass.
        ...(ctx.redis ? { redis: ctx.redis, nameSpace: 'rate-limit:', skipOnError: true } : {}),
        errorResponseBuilder: (_req, context) => ({
          statusCode: 429,
          success: false,
          message: messages.common.tooManyRequests,
          retryAfter: context.after,
        }),
      });
      await api.register(fastifyMultipart, { throwFileSizeLimit: true });
      await api.register(authRoutes(ctx));
      await api.register(userRoutes(ctx));
      await api.register(configRoutes(ctx));
      await api.register(showcaseRoutes(ctx));
      await api.register(thumbnailRoutes(ctx));
      await api.register(projectRoutes(ctx));
      await api.register(deployRoutes(ctx));
      await api.register(previewRoutes(ctx));
      await api.register(adminRoutes(ctx));
      await api.register(apiDocsRoutes);
    },
    { prefix: '/api' },
  );
  // Every entry of the endpoint table has its route and every /api route its entry.
  assertEndpointTable(app.apiRoutes);

  // A test may pass its own client to check; otherwise the shared one (REDIS_URL), which counts as
  // ready only while the invalidation subscription is up too.
  const redis = ctx.redis;
  const redisCheck: Pingable | undefined = redis && {
    ping: async () => {
      if (!ctx.cluster.bus.listening()) throw new Error('not subscribed to cache invalidations');
      return redis.ping();
    },
  };
  registerHealth(app, {
    db: ctx.db,
    store: ctx.store,
    redis: opts.redis ?? redisCheck,
    disk: () => ctx.diskSpace.check(),
    // Told, never failing readiness: how hot files are served, and whether pictures are made.
    detail: () => ({ fastPath: fastPathStatus, render: ctx.services.render.state }),
  });

  await siteRoutes(app, ctx, siteHeaders);
  await registerWebApp(app, config.webDist);

  const jobs = startTimedJobs(
    { ...ctx.services, showcase: ctx.showcase },
    {
      viewFlushMs: opts.viewFlushMs,
      jobs: ctx.cluster.jobs,
      // An outage is logged once, by the pool; each job it stops is not worth a line more.
      onError: (job, err) =>
        isDatabaseUnavailable(err)
          ? app.log.debug({ err, job }, 'timed job waits for the database')
          : app.log.error({ err, job }, 'timed job failed'),
      heartbeat: () => ctx.cluster.instances.heartbeat(),
      // After a round, the other instances skip the blob part for most of an interval.
      sweep: { everyMs: config.sweepIntervalMs, run: () => sweep(Math.floor(config.sweepIntervalMs * 0.9)) },
    },
  );
  // At shutdown, uploads still receiving after the grace period are answered 503 (and their
  // staging removed) rather than cut off when the process exits.
  let graceTimer: NodeJS.Timeout | undefined;
  if (sitesServer) {
    const server: http.Server = sitesServer;
    server.on('clientError', answerClientError);
    app.addHook('preClose', async () => {
      if (server.listening) server.close();
    });
    app.addHook('onClose', async () => {
      server.closeAllConnections();
    });
  }
  app.addHook('preClose', async () => {
    fastPath?.stop();
    graceTimer = setTimeout(() => {
      const n = ctx.receiving.stopAll(
        new ServiceUnavailable(messages.common.unavailable, { closeConnection: true }),
      );
      if (n > 0) app.log.warn({ uploads: n }, 'shutdown: uploads still receiving were answered 503');
    }, config.shutdownGraceMs);
    graceTimer.unref();
  });
  app.addHook('onClose', async () => {
    closing = true;
    clearTimeout(graceTimer);
    await jobs.stop();
    await ctx.services.render.stop();
    // Nothing of this instance is left to protect: its leftovers may go at once.
    await ctx.cluster.instances.end().catch(() => undefined);
    // Counted views reach the database before it closes: a graceful restart loses none (unless
    // the database is unreachable right then: the rest still closes).
    await ctx.services.views
      .close()
      .catch((err: unknown) => app.log.error({ err }, 'view counts not written'));
    await ctx.cluster.close();
    await database.close();
    await ownStore?.close();
  });
  return { app, ctx, database, fastPath, fastPathStatus, startup, sitesServer };
}

/**
 * The sites port answers sites only: a request whose Host does not name it (a port mapped to
 * another number, a proxy that rewrote Host) is not the app either, but the sites host's 404.
 */
function answerOffSitesHost(ctx: AppContext, req: http.IncomingMessage, res: http.ServerResponse): boolean {
  if (ctx.siteHosts.namesSitesPort(req.headers.host)) return false;
  res.writeHead(404, {
    'content-type': 'text/plain; charset=utf-8',
    'cache-control': 'no-cache',
    'x-content-type-options': 'nosniff',
  });
  res.end(messages.common.wrongSitesHost);
  return true;
}

/**
 * Starts the sites port. One that can't be bound stops the start with a message saying what to do:
 * going on sandboxed would hand out addresses that lead nowhere (docs/decisions.md "Serving sites").
 */
export async function listenSitesPort(built: BuiltApp, config: Config): Promise<void> {
  const server = built.sitesServer;
  if (!server) return;
  await new Promise<void>((resolve, reject) => {
    const failed = (err: NodeJS.ErrnoException) => {
      reject(
        new ConfigError(
          `站点端口 SITES_PORT=${config.sitesPort} 无法监听（${err.code ?? err.message}）。` +
            '请释放该端口、改用其他 SITES_PORT，或设置 SITES_PORT=0（站点与平台共用一个端口，以沙箱隔离）。' +
            ` / The sites port ${config.sitesPort} cannot be bound (${err.code ?? err.message}):` +
            ' free it, choose another SITES_PORT, or set SITES_PORT=0 to serve sandboxed sites on the app port.',
        ),
      );
    };
    server.once('error', failed);
    server.listen(config.sitesPort, config.host, () => {
      server.off('error', failed);
      // Later errors (a socket's, the OS's) are logged, never thrown.
      server.on('error', (err) => built.app.log.error({ err }, 'sites port'));
      resolve();
    });
  });
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** A start that failed on a full disk says so in words (SQLite may say only "disk I/O error"). */
async function startupError(err: unknown, dataDir: string): Promise<unknown> {
  const message = await diskFullAtStart(err, dataDir);
  return message ? new ConfigError(message) : err;
}
