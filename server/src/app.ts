/**
 * Builds the Fastify instance, used by main.ts and by the tests. Starting and stopping what runs
 * beside it (the database's start, workers, shutdown, ports, signals) is lifecycle.ts.
 */

import type http from 'node:http';
import type { Duplex } from 'node:stream';
import fastifyMultipart from '@fastify/multipart';
import fastifyRateLimit, { normalizeIP } from '@fastify/rate-limit';
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
import { type DatabaseHandle, openDatabase } from './db/database.js';
import type { PoolEvent } from './db/postgres-pool.js';
import { prepareNameOrder } from './domain/name-order.js';
import { registerAccess } from './http/access.js';
import { registerAuditBudget } from './http/audit-budget.js';
import { registerCliDownload } from './http/cli-download.js';
import {
  answerClientError,
  answerConnect,
  MAX_HEAD_BYTES,
  refuseExpectation,
  refuseHostless,
  refuseLargeHead,
} from './http/client-errors.js';
import { assertEndpointTable } from './http/endpoint-routes.js';
import { registerErrorHandling, statusMessage } from './http/errors.js';
import { hstsHeader, registerAppHeaders } from './http/headers.js';
import { type Pingable, registerHealth } from './http/health.js';
import { registerJsonBodies } from './http/json-bodies.js';
import { registerMetrics } from './http/metrics.js';
import { apiDocsRoutes } from './http/openapi.js';
import { registerBodyDeadlines } from './http/request-bodies.js';
import { registerWebApp } from './http/web-app.js';
import { type DatabaseStartup, manageWorkers, type StartupLog, startDatabase, sweepOf } from './lifecycle.js';
import { adminRoutes } from './routes/admin.js';
import { authRoutes } from './routes/auth.js';
import { configRoutes } from './routes/config.js';
import { deployRoutes } from './routes/deploys.js';
import { domainRoutes } from './routes/domains.js';
import { notificationRoutes } from './routes/notifications.js';
import { previewRoutes } from './routes/preview.js';
import { projectRoutes } from './routes/projects.js';
import { showcaseRoutes } from './routes/showcase.js';
import { registerSitesHostGuard, siteRoutes } from './routes/sites.js';
import { thumbnailRoutes } from './routes/thumbnails.js';
import { userRoutes } from './routes/users.js';
import { createSiteFastPath, type SiteFastPath } from './serve/fast-path.js';
import {
  isSiteContentPath,
  registerSiteSecurityHeaders,
  type SiteIsolation,
  siteHeadersForUrl,
} from './serve/index.js';
import { type SiteServerState, siteServerFactory } from './serve/site-server.js';
import { diskFullAtStart } from './storage/disk-space.js';
import { type BlobStore, openBlobStore } from './storage/index.js';

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
  /** Whether the database answered at start (startup had settled when buildApp returned). */
  reachedAtStart: boolean;
  /**
   * The sites port's server (config.sitesPort), not yet listening (listenSitesPort): the same
   * handlers as the app's, answering only what its guard lets through. Null without a sites port.
   */
  sitesServer: http.Server | null;
}

export type FastPathStatus = 'on' | 'off' | 'degraded';

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
  // Before any request waits for it (domain/name-order.ts).
  prepareNameOrder();
  let log: StartupLog = () => {};
  const sweep = sweepOf(ctx, config);
  let started: DatabaseStartup;
  try {
    started = await startDatabase(ctx, database, sweep, (level, msg, err) => log(level, msg, err));
  } catch (err) {
    await ctx.cluster.close();
    await database.close();
    await ownStore?.close();
    throw await startupError(err, config.dataDir);
  }
  const { reachedAtStart } = started;
  // The served custom domains are in memory before the first request, once the tables exist.
  const startup = started.startup.then(() =>
    ctx.services.customDomains
      .reload()
      .catch((err: unknown) => log('warn', 'custom domains not loaded; they load on the next change', err)),
  );
  if (reachedAtStart) await startup;
  const isolation: SiteIsolation = ctx.siteHosts.separate ? 'separate-origin' : 'sandboxed';
  const hsts = hstsHeader(config.hsts);
  // A sites origin the operator gave as https:// gets HSTS on every answer (browsers ignore it over
  // plain HTTP), so the fast path's prepared headers can carry it. On one host, the app's own
  // pages set the host's policy (docs/decisions/http.md "HTTP").
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
        peekName: (label) => ctx.services.siteIndex.peekName(label),
        source: ctx.services.siteFiles,
        countView: (id, meta, page) => ctx.services.views.count(id, meta, page),
        countBytes: (id, n) => ctx.services.views.bytes(id, n),
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
  /** Whether a request came to a site address: refusals there are the platform's page. */
  const atSiteAddress = (r: RawRequestDefaultExpression) =>
    ctx.siteHosts.classify(r.headers.host, r.socket?.localPort).kind !== 'app' ||
    isSiteContentPath(r.url ?? '');
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
    // Room for a cookie jar a site filled (refuseLargeHead keeps everything else at 16 KB). Node
    // looks for heads and requests past their timeout only every 30 s by default, so a 1 MiB head
    // held open would last up to 45 s, not 15: it looks every second (docs/security.md).
    http: {
      headersTimeout: config.timeouts.headers,
      maxHeaderSize: MAX_HEAD_BYTES,
      connectionsCheckingInterval: Math.min(1000, config.timeouts.headers / 4),
      // A request without Host is refused below (refuseHostless), in Chinese: Node's own answer
      // to it was a 400 with no body.
      requireHostHeader: false,
    },
    bodyLimit: 1024 * 1024,
    // Client route paths may hold Chinese; ids are validated by each route.
    routerOptions: { maxParamLength: 500 },
    return503OnClosing: true,
    serverFactory: siteServerFactory(
      {
        fastPath,
        // At a site address the refusal is the platform's page, as every error there.
        refuse: (req, res) =>
          refuseHostless(req, res, atSiteAddress) || refuseLargeHead(req, res, atSiteAddress),
        refuseExpectation: (req, res) => refuseExpectation(res, atSiteAddress(req)),
        twin: (make) => {
          if (config.sitesPort) sitesServer = make((req, res) => answerOffSitesHost(ctx, req, res));
        },
        ...(opts.alterServer ? { alterServer: opts.alterServer } : {}),
      },
      serverState,
    ),
    // A site's own host ({name} or p{id} under the sites host, or under localhost on the sites
    // port) is served as /sites/{name or id}/x; with SITES_ORIGIN, a verified custom domain's /x
    // too (serve/custom-domain-hosts.ts).
    ...(ctx.siteHosts.hasSiteHosts || config.sitesOrigin
      ? { rewriteUrl: (req: RawRequestDefaultExpression) => ctx.siteHosts.rewriteUrl(req) }
      : {}),
    // Requests the HTTP parser refuses (malformed, too large, timed out): the envelope in Chinese.
    clientErrorHandler: answerClientError,
    // Fastify answers URLs it can't decode without running hooks: give those the envelope or, at a
    // site address (under /sites and /preview, or anywhere on the sites port or host), the plain
    // 400 with the site headers.
    frameworkErrors(error, request, rawReply) {
      const reply = rawReply as unknown as FastifyReply;
      // The sites port (or host) is one whatever the path: `/%c0` there got the API's envelope,
      // without nosniff (docs/decisions/serving.md "Error pages at site addresses").
      const site =
        siteHeadersForUrl(request.url, isolation) ??
        (atSiteAddress(request.raw) ? siteHeadersForUrl('/sites/', isolation) : null);
      if (site)
        return reply
          .code(400)
          .headers({ ...site, ...siteExtraHeaders })
          .type('text/plain; charset=utf-8')
          .send('400 无效的地址');
      // A path segment past the router's maxParamLength is 414 (请求地址过长).
      const status = error.statusCode ?? 400;
      return reply
        .code(status)
        .type('application/json; charset=utf-8')
        .send({ success: false, message: statusMessage(status) });
    },
  });

  // A CONNECT (a proxy's tunnel) is no request Fastify sees: 405 instead of a silent close.
  app.server.on('connect', (_req: unknown, socket: Duplex) => answerConnect(socket));

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
  ctx.services.notifications.logTo((level, msg, detail) => app.log[level](detail ?? {}, msg));
  log = (level, msg, err) => app.log[level](err === undefined ? {} : { err }, msg);
  database.pool?.reportTo((event: PoolEvent) => {
    if (event.kind === 'down')
      app.log.error(
        { err: event.err },
        'database unreachable: requests that need it get 503 until it is back',
      );
    else if (event.kind === 'up') app.log.info('database reachable again');
    else if (event.kind === 'prepared-off')
      app.log.warn(
        { err: event.err },
        'database: a prepared statement was lost between connections (a pooler in transaction mode?); statements are no longer kept prepared',
      );
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
    showcaseFor: (request) => ctx.siteHosts.showcaseUrl(request.headers.host),
  });
  registerJsonBodies(app);
  registerMetrics(app, ctx.metrics, config.metrics);
  registerAppHeaders(app, ctx.siteHosts.frameSources(), hsts);
  registerBodyDeadlines(app, config.timeouts.body);
  registerSiteSecurityHeaders(app, isolation, siteExtraHeaders);
  registerSitesHostGuard(app, ctx);
  registerAccess(app, ctx.services.sessions, ctx.services.apiTokens);
  registerAuditBudget(app, ctx.services.auditBudget);

  await app.register(
    async (api) => {
      await api.register(fastifyRateLimit, {
        max: 600,
        timeWindow: 60_000,
        // A client that reset its connection before its request was read has no address left to
        // read: such requests share one count instead of throwing (docs/decisions/http.md "API rate
        // limit").
        keyGenerator: (request) => (request.ip === undefined ? 'address-gone' : normalizeIP(request.ip)),
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
      await api.register(notificationRoutes(ctx));
      await api.register(previewRoutes(ctx));
      await api.register(adminRoutes(ctx));
      await api.register(domainRoutes(ctx));
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
  registerCliDownload(app);
  await registerWebApp(app, config.webDist);

  manageWorkers(app, ctx, {
    config,
    database,
    ownStore,
    startup: started,
    sweep,
    sitesServer,
    fastPath,
    ...(opts.viewFlushMs !== undefined ? { viewFlushMs: opts.viewFlushMs } : {}),
  });
  return { app, ctx, database, fastPath, fastPathStatus, startup, reachedAtStart, sitesServer };
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

/** A start that failed on a full disk says so in words (SQLite may say only "disk I/O error"). */
async function startupError(err: unknown, dataDir: string): Promise<unknown> {
  const message = await diskFullAtStart(err, dataDir);
  return message ? new ConfigError(message) : err;
}
