/**
 * The server's lifecycle, apart from building it (app.ts): the database's start (migrations and
 * the leftover sweep, retried while PostgreSQL is away), the workers (timed jobs, renders) and
 * their stop, the shutdown hooks, listening on the ports, and the signals that close it all.
 */
import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { messages } from '@sitehall/contracts';
import type { FastifyInstance } from 'fastify';
import { type Config, ConfigError } from './config.js';
import type { AppContext } from './context.js';
import { type DatabaseHandle, migrateToLatest } from './db/database.js';
import { DatabaseUnavailable, isDatabaseUnavailable } from './db/postgres-pool.js';
import { ServiceUnavailable } from './domain/errors.js';
import { answerClientError, answerConnect } from './http/client-errors.js';
import { type MetricsServer, serveMetrics } from './http/metrics.js';
import { sweepLeftovers } from './jobs/sweep.js';
import { startTimedJobs } from './jobs/timed.js';
import type { SiteFastPath } from './serve/fast-path.js';

/** What listening needs of a built app (app.ts's BuiltApp). */
interface Listening {
  app: FastifyInstance;
  ctx: Pick<AppContext, 'metrics'>;
  sitesServer: http.Server | null;
}

import { type BlobStore, StorageUnavailable } from './storage/index.js';

/** Between attempts to reach the database at start: doubling, up to the cap. */
const STARTUP_RETRY_FIRST_MS = 250;
const STARTUP_RETRY_MAX_MS = 5_000;
/** How long a start waits for the Redis subscription before going on without it (not ready). */
const SUBSCRIBE_WAIT_MS = 2_000;
/** While closing, how often connections that became idle are closed. */
const IDLE_SWEEP_MS = 100;

export type StartupLog = (level: 'info' | 'warn' | 'error', msg: string, err?: unknown) => void;

/** One round of the leftover sweep (jobs/sweep.ts) over this instance's context. */
export type Sweep = (cooldownMs?: number, keepStagedFrom?: number) => ReturnType<typeof sweepLeftovers>;

export function sweepOf(ctx: AppContext, config: Config): Sweep {
  return (cooldownMs, keepStagedFrom) =>
    sweepLeftovers({
      ...ctx.cluster,
      db: ctx.db,
      store: ctx.store,
      dataDir: config.dataDir,
      metrics: ctx.metrics,
      expireDeploys: () => ctx.services.deploys.expire(),
      dropRenderJobs: () => ctx.repositories.renderJobs.dropOfDeleted(ctx.db),
      ...(cooldownMs ? { cooldownMs } : {}),
      ...(keepStagedFrom !== undefined ? { keepStagedFrom } : {}),
    });
}

export interface DatabaseStartup {
  /** Whether the database answered at start (else the app answers 503 until `startup` settles). */
  reachedAtStart: boolean;
  /** Settles once the database is migrated and the leftovers swept. */
  startup: Promise<void>;
  /** Ends the retries (the app closes). */
  stop(): void;
  readonly stopped: boolean;
}

/**
 * Migrations, then the sweep of whatever a crash left half-made, before requests use the
 * database. PostgreSQL unreachable: the start goes on (sites in no need of it are served, the rest
 * is 503) and this keeps trying; anything else (a broken migration, a full disk, a bucket that
 * can't be used) stops the start (thrown).
 */
export async function startDatabase(
  ctx: AppContext,
  database: DatabaseHandle,
  sweep: Sweep,
  log: StartupLog,
): Promise<DatabaseStartup> {
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
    await prepare();
  } catch (err) {
    if (!(err instanceof DatabaseUnavailable)) throw err;
    reachedAtStart = false;
  }
  // Subscribed before the first request when Redis answers, so no change made elsewhere after it
  // goes unheard; without it the instance starts, not ready, and subscribes once Redis is back.
  await Promise.race([ctx.cluster.ready, delay(SUBSCRIBE_WAIT_MS)]);
  const state = { stopped: false };
  const startup = reachedAtStart
    ? Promise.resolve()
    : (async () => {
        let wait = STARTUP_RETRY_FIRST_MS;
        for (;;) {
          await delay(wait);
          if (state.stopped) return;
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
  return {
    reachedAtStart,
    startup,
    stop() {
      state.stopped = true;
    },
    get stopped() {
      return state.stopped;
    },
  };
}

/**
 * Starts the workers (timed jobs at once, renders once the database is migrated) and registers
 * what stops them and closes the rest when the app closes: uploads still receiving after the
 * grace period are answered 503 (and their staging removed) rather than cut off when the process
 * exits; counted views are written; the database and a store opened here close last.
 */
export function manageWorkers(
  app: FastifyInstance,
  ctx: AppContext,
  opts: {
    config: Config;
    database: DatabaseHandle;
    /** The store when the app opened it (closed with it), else null. */
    ownStore: BlobStore | null;
    startup: DatabaseStartup;
    sweep: Sweep;
    sitesServer: http.Server | null;
    fastPath: SiteFastPath | null;
    viewFlushMs?: number;
  },
): void {
  const { config, database, ownStore, startup, sweep, sitesServer, fastPath } = opts;
  // Renders begin once the database is migrated (at once, or when PostgreSQL is back).
  startup.startup.then(
    () => {
      if (!startup.stopped) ctx.services.render.start();
      if (!startup.stopped) ctx.services.notifications.start();
    },
    () => {},
  );
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
  let graceTimer: NodeJS.Timeout | undefined;
  if (sitesServer) {
    const server: http.Server = sitesServer;
    // Everything on the sites port is a site address: its refusals are the platform's page too.
    server.on('clientError', (err: Error & { code?: string }, socket: Duplex) =>
      answerClientError(err, socket, true),
    );
    server.on('connect', (_req: unknown, socket: Duplex) => answerConnect(socket, true));
    app.addHook('preClose', async () => {
      if (server.listening) server.close();
    });
    app.addHook('onClose', async () => {
      server.closeAllConnections();
    });
  }
  // Node closes the idle keep-alive connections once, as the close begins: one whose answer was
  // still being sent then stayed open for the keep-alive timeout (72 s) after it, and held the
  // close that long. While closing they are closed as they become idle.
  let idleSweep: NodeJS.Timeout | undefined;
  app.addHook('preClose', async () => {
    const server = app.server;
    if (server.listening) {
      idleSweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
      idleSweep.unref();
      server.once('close', () => clearInterval(idleSweep));
    }
  });
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
    startup.stop();
    clearTimeout(graceTimer);
    clearInterval(idleSweep);
    await jobs.stop();
    await ctx.services.render.stop();
    await ctx.services.notifications.stop();
    // Releases that failed while the database was away get one last try.
    await ctx.cluster.gate.close();
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
}

/**
 * Starts the sites port. One that can't be bound stops the start with a message saying what to do:
 * going on sandboxed would hand out addresses that lead nowhere (docs/decisions/serving.md "Serving sites").
 */
export async function listenSitesPort(built: Omit<Listening, 'ctx'>, config: Config): Promise<void> {
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

/** Listens on the app port, the sites port and the metrics port (when set); returns the metrics server. */
export async function listen(built: Listening, config: Config): Promise<MetricsServer | undefined> {
  const { app, ctx } = built;
  await app.listen({ port: config.port, host: config.host });
  await listenSitesPort(built, config);
  const { port: metricsPort } = config.metrics;
  if (metricsPort === undefined) return undefined;
  const metricsServer = await serveMetrics(ctx.metrics, { ...config.metrics, port: metricsPort });
  app.log.info(`metrics: http://${config.metrics.host}:${metricsServer.port}/metrics`);
  return metricsServer;
}

/**
 * SIGTERM and SIGINT close the app once: uploads still receiving are answered 503 after the grace
 * period (manageWorkers); the rest of the requests get a few more seconds to finish.
 */
export function closeOnSignals(
  app: FastifyInstance,
  config: Config,
  metricsServer: () => MetricsServer | undefined,
): void {
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    const force = setTimeout(() => process.exit(1), config.shutdownGraceMs + 5_000).unref();
    try {
      await metricsServer()?.close();
      await app.close();
      clearTimeout(force);
      process.exit(0);
    } catch (err) {
      app.log.error({ err }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
