/** Builds the Fastify instance, used by main.ts and by the tests. */

import fastifyMultipart from '@fastify/multipart';
import fastifyRateLimit from '@fastify/rate-limit';
import { messages } from '@sitehall/contracts';
import Fastify, { type FastifyInstance, type FastifyReply, type RawRequestDefaultExpression } from 'fastify';
import { type Config, ConfigError } from './config.js';
import { type AppContext, type ContextOptions, createContext } from './context.js';
import { type DatabaseHandle, migrateToLatest, openDatabase } from './db/database.js';
import { registerAccess } from './http/access.js';
import { answerClientError } from './http/client-errors.js';
import { registerErrorHandling } from './http/errors.js';
import { hstsHeader, registerAppHeaders } from './http/headers.js';
import { type Pingable, registerHealth } from './http/health.js';
import { registerMetrics } from './http/metrics.js';
import { registerWebApp } from './http/web-app.js';
import { sweepLeftovers } from './jobs/sweep.js';
import { startTimedJobs } from './jobs/timed.js';
import { adminRoutes } from './routes/admin.js';
import { authRoutes } from './routes/auth.js';
import { configRoutes } from './routes/config.js';
import { previewRoutes } from './routes/preview.js';
import { projectRoutes } from './routes/projects.js';
import { showcaseRoutes } from './routes/showcase.js';
import { registerSitesHostGuard, siteRoutes } from './routes/sites.js';
import { userRoutes } from './routes/users.js';
import { createSiteFastPath, type SiteFastPath, siteServerFactory } from './serve/fast-path.js';
import { registerSiteSecurityHeaders, type SiteIsolation, siteHeadersForUrl } from './serve/index.js';
import { openBlobStore } from './storage/index.js';

export interface BuiltApp {
  app: FastifyInstance;
  ctx: AppContext;
  database: DatabaseHandle;
  /** The /sites fast path, when on (tests check it is taken). */
  fastPath: SiteFastPath | null;
}

export async function buildApp(
  config: Config,
  opts: { logger?: boolean; redis?: Pingable } & ContextOptions = {},
): Promise<BuiltApp> {
  // A store passed in is its caller's to close; one opened here is closed with the app.
  const store = opts.store ?? (await openBlobStore(config));
  const ownStore = opts.store ? null : store;
  const database = openDatabase(config.database);
  await migrateToLatest(database);
  const ctx = createContext(config, database, { ...opts, store });
  try {
    // Whatever a crash left half-made goes before the first request.
    await sweepLeftovers({ ...ctx.cluster, store: ctx.store, dataDir: config.dataDir });
    // Subscribed before the first request, so no change made elsewhere after it goes unheard.
    await ctx.cluster.bus.ready.catch((err: unknown) => {
      throw new ConfigError(
        `REDIS_URL: Redis cannot be reached (${err instanceof Error ? err.message : err})`,
      );
    });
  } catch (err) {
    await ctx.cluster.close();
    await database.close();
    await ownStore?.close();
    throw err;
  }
  const isolation: SiteIsolation = config.sitesOrigin ? 'separate-origin' : 'sandboxed';
  const hsts = hstsHeader(config.hsts);
  // A sites origin the operator gave as https:// gets HSTS on every answer (browsers ignore it over
  // plain HTTP), so the fast path's prepared headers can carry it. On one host, the app's own
  // pages set the host's policy (docs/decisions.md "HTTP").
  const siteExtraHeaders: Record<string, string> =
    hsts && config.sitesOrigin?.startsWith('https://') ? { 'strict-transport-security': hsts } : {};
  // Hot files of /sites answered before Fastify (serve/fast-path.ts); with a sites origin, on
  // the sites host only (the app host's redirects are the route's).
  const fastPath = createSiteFastPath({
    peekLive: (id) => ctx.services.siteIndex.peekLive(id),
    source: ctx.services.siteFiles,
    countView: (id, userAgent, client) => ctx.services.views.count(id, userAgent, client),
    trustProxy: config.trustProxy,
    siteHeaders: { ...siteHeadersForUrl('/sites/', isolation)!, ...siteExtraHeaders },
    ...(ctx.siteHosts.separate ? { hosts: ctx.siteHosts } : {}),
    // Counted under the pattern of the route that would otherwise have answered.
    ...(ctx.metrics.exposed
      ? { onServed: (status, ms) => ctx.metrics.observeRequest('/sites/*', 'GET', status, ms) }
      : {}),
  });

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
          },
    trustProxy: config.trustProxy,
    requestTimeout: config.timeouts.request,
    connectionTimeout: config.timeouts.idle,
    keepAliveTimeout: config.timeouts.keepAlive,
    http: { headersTimeout: config.timeouts.headers },
    bodyLimit: 1024 * 1024,
    // Client route paths may hold Chinese; ids are validated by each route.
    routerOptions: { maxParamLength: 500 },
    return503OnClosing: true,
    serverFactory: siteServerFactory(() => fastPath),
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

  ctx.cluster.reportErrorsTo((err) => app.log.warn({ err }, 'redis'));
  registerErrorHandling(app);
  registerMetrics(app, ctx.metrics, config.metrics);
  registerAppHeaders(app, ctx.siteHosts.frameSources(), hsts);
  registerSiteSecurityHeaders(app, isolation, siteExtraHeaders);
  registerSitesHostGuard(app, ctx);
  registerAccess(app, ctx.services.sessions);

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
      await api.register(projectRoutes(ctx));
      await api.register(previewRoutes(ctx));
      await api.register(adminRoutes(ctx));
    },
    { prefix: '/api' },
  );

  // A test may pass its own client to check; otherwise the shared one (REDIS_URL).
  registerHealth(app, { db: ctx.db, store: ctx.store, redis: opts.redis ?? ctx.redis });

  await siteRoutes(app, ctx);
  await registerWebApp(app, config.webDist);

  const jobs = startTimedJobs(
    { ...ctx.services, showcase: ctx.showcase },
    {
      viewFlushMs: opts.viewFlushMs,
      jobs: ctx.cluster.jobs,
      onError: (job, err) => app.log.error({ err, job }, 'timed job failed'),
    },
  );
  app.addHook('preClose', () => fastPath?.stop());
  app.addHook('onClose', async () => {
    await jobs.stop();
    // Counted views reach the database before it closes: a graceful restart loses none.
    await ctx.services.views.close();
    await ctx.cluster.close();
    await database.close();
    await ownStore?.close();
  });
  return { app, ctx, database, fastPath };
}
