/**
 * Liveness and readiness for load balancers and orchestrators, outside /api (no session, no rate
 * limit). /healthz: the process answers. /readyz: everything a request may need answers too —
 * the database (a trivial query), its migrations (all recorded), the blob store (a stat), Redis
 * when one is configured (PING) and free space on the data folder's disk (MIN_FREE_DISK_BYTES) —
 * each within a short timeout, checked in parallel. A failing part
 * is named in the answer; why it failed goes to the log only, since the endpoint is public.
 * `detail` says how the instance runs where an operator would want to know (the /sites fast path:
 * on, off, or degraded when Node lacks what it needs), without failing readiness.
 */
import type { FastifyInstance } from 'fastify';
import type { DB } from '../db/database.js';
import { appliedMigrations, migrationNames, ping } from '../db/probe.js';
import type { BlobStore } from '../storage/index.js';

/** Anything that answers a PING: the Redis client when REDIS_URL is set. */
export interface Pingable {
  ping(): Promise<unknown>;
}

export interface ReadinessDeps {
  db: DB;
  store: Pick<BlobStore, 'stat'>;
  redis?: Pingable;
  /** Throws when DATA_DIR's disk is below MIN_FREE_DISK_BYTES (storage/disk-space.ts). */
  disk?: () => Promise<void>;
  /** Facts shown beside the checks that never fail readiness (the render worker's state). */
  detail?: () => Record<string, string>;
  /** Per check, in ms. Default 2 s: a probe must answer well within a balancer's own timeout. */
  timeoutMs?: number;
}

export type CheckResult = 'ok' | 'failed' | 'timeout' | 'not configured';

class CheckTimeout extends Error {}

/** A hash no blob has: stat answers null from a healthy store and throws from a broken one. */
const PROBE_BLOB = '0'.repeat(64);

async function withTimeout(work: () => Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CheckTimeout()), ms);
  });
  try {
    await Promise.race([work(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export function registerHealth(app: FastifyInstance, deps: ReadinessDeps): void {
  const timeoutMs = deps.timeoutMs ?? 2_000;
  const checks: Record<string, (() => Promise<unknown>) | undefined> = {
    database: () => ping(deps.db),
    migrations: async () => {
      const applied = await appliedMigrations(deps.db);
      const missing = migrationNames.filter((name) => !applied.has(name));
      if (missing.length > 0) throw new Error(`migrations not applied: ${missing.join(', ')}`);
    },
    storage: () => deps.store.stat(PROBE_BLOB),
    redis: deps.redis ? () => deps.redis!.ping() : undefined,
    disk: deps.disk,
  };

  // Liveness: the process is up and answering.
  app.get('/healthz', { config: { access: 'public' } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { config: { access: 'public' } }, async (request, reply) => {
    const names = Object.keys(checks);
    const results = await Promise.all(
      names.map(async (name): Promise<CheckResult> => {
        const check = checks[name];
        if (!check) return 'not configured';
        try {
          await withTimeout(check, timeoutMs);
          return 'ok';
        } catch (err) {
          request.log.warn({ err, check: name }, 'readiness check failed');
          return err instanceof CheckTimeout ? 'timeout' : 'failed';
        }
      }),
    );
    const report = Object.fromEntries(names.map((name, i) => [name, results[i]]));
    const failed = names.filter((_, i) => results[i] === 'failed' || results[i] === 'timeout');
    reply.header('cache-control', 'no-store');
    const detail = deps.detail ? { detail: deps.detail() } : {};
    if (failed.length === 0) return { status: 'ok', checks: report, ...detail };
    return reply.code(503).send({ status: 'unavailable', failed, checks: report, ...detail });
  });
}
