/**
 * Site view counting: an HTML page view of a live site counts one; assets and obvious bots don't,
 * and one visitor (client address and User-Agent) counts once per project per 30 minutes
 * (cluster/view-visitors.ts).
 * Counts gather in memory and are written in batches (one transaction per flush, never a write
 * per request; jobs/timed.ts flushes every few seconds), adding to the project's total and to its
 * per-day row (UTC day of the view). Closing the app flushes, so a graceful restart loses nothing;
 * a crash loses at most the last few seconds of counts.
 *
 * Several instances each flush their own batch: every write is an increment made by the database
 * (`view_count + n`, an upsert adding to the day's row), never a read-then-write, so their counts
 * add up exactly. Rows are touched in one global order (project id, then day) so two instances'
 * flushes wait for each other on PostgreSQL instead of deadlocking.
 *
 * The owner's analytics (services/site-analytics.ts: pages, referring hosts, bytes served) are
 * counted beside the views and written by the same flush, in the same transaction.
 */
import type { Redis } from 'ioredis';
import { RecentVisitors, SharedVisitors, VISITOR_WINDOW_MS, visitorHash } from '../cluster/view-visitors.js';
import type { DB } from '../db/database.js';
import type { PageView, RequestMeta } from '../domain/request-meta.js';

export type { PageView };

import * as projectDailyViews from '../repositories/project-daily-views.js';
import * as projects from '../repositories/projects.js';
import { SiteTraffic, type TrafficBatch, trafficProjects, writeTraffic } from './site-analytics.js';

const BOTS =
  /bot\b|bot\/|crawler|spider|slurp|bingpreview|facebookexternalhit|embedly|python-requests|python-urllib|go-http-client|wget|curl\/|httpclient|libwww|scrapy|lighthouse|pingdom|uptime/i;

export function isBot(userAgent: string | undefined): boolean {
  return !userAgent || BOTS.test(userAgent);
}

const DAY_MS = 86_400_000;
let day = '';
let dayStart = 0;
/** The UTC day (YYYY-MM-DD) of a moment; formatted once per day, not once per view. */
function utcDay(now: number): string {
  if (now < dayStart || now >= dayStart + DAY_MS) {
    dayStart = now - (now % DAY_MS);
    day = new Date(dayStart).toISOString().slice(0, 10);
  }
  return day;
}

let lastAgent: string | undefined;
let lastAgentIsBot = true;

/** Counts not yet written: UTC day → project id → views. */
type Pending = Map<string, Map<number, number>>;

export function createViewCounter(
  db: DB,
  opts: {
    /** With REDIS_URL: the instances share who viewed what lately. */
    redis?: Redis;
    /** How long one visitor's views of a project count once. */
    visitorWindowMs?: number;
  } = {},
) {
  const windowMs = opts.visitorWindowMs ?? VISITOR_WINDOW_MS;
  const recent = new RecentVisitors(windowMs);
  const shared = opts.redis ? new SharedVisitors(opts.redis, windowMs) : undefined;
  let pending: Pending = new Map();
  let pendingTotal = 0;
  const traffic = new SiteTraffic();
  let flushing: Promise<void> | null = null;
  /** When the counts were last all written (epoch ms): the flush lag metric reads it. */
  let flushedAt = Date.now();

  function add(into: Pending, day: string, projectId: number, n: number) {
    let perDay = into.get(day);
    if (!perDay) {
      perDay = new Map();
      into.set(day, perDay);
    }
    perDay.set(projectId, (perDay.get(projectId) ?? 0) + n);
  }

  async function write(batch: Pending, trafficBatch: TrafficBatch): Promise<void> {
    await db.transaction().execute(async (trx) => {
      const totals = new Map<number, number>();
      for (const perDay of batch.values())
        for (const [id, n] of perDay) totals.set(id, (totals.get(id) ?? 0) + n);
      const gone = new Set<number>();
      for (const [projectId, n] of [...totals].sort((a, b) => a[0] - b[0])) {
        // The project was deleted since the view: nothing to add to.
        if (!(await projects.addViews(trx, projectId, n))) gone.add(projectId);
      }
      const daily = [...batch].flatMap(([day, perDay]) => [...perDay].map(([id, n]) => ({ day, id, n })));
      daily.sort((a, b) => a.id - b.id || a.day.localeCompare(b.day));
      for (const { day, id: projectId, n } of daily) {
        if (gone.has(projectId)) continue;
        await projectDailyViews.add(trx, projectId, day, n);
      }
      // A project with traffic but no view in this batch is looked up once: deleted, it is skipped.
      const live = new Map<number, boolean>();
      for (const id of totals.keys()) live.set(id, !gone.has(id));
      for (const id of trafficProjects(trafficBatch))
        if (!live.has(id)) live.set(id, await projects.exists(trx, id));
      await writeTraffic(trx, trafficBatch, (id) => live.get(id) === true);
    });
  }

  function countOne(projectId: number): void {
    add(pending, utcDay(Date.now()), projectId, 1);
    pendingTotal++;
  }

  /** Writes everything counted so far; one flush at a time, later callers wait their turn. */
  async function flush(): Promise<void> {
    // Views whose visitor check is still with Redis are counted first.
    await shared?.settled();
    while (flushing) await flushing;
    if (pendingTotal === 0 && traffic.empty) {
      flushedAt = Date.now();
      return;
    }
    const batch = pending;
    const total = pendingTotal;
    const trafficBatch = traffic.take();
    pending = new Map();
    pendingTotal = 0;
    flushing = write(batch, trafficBatch)
      .catch((err: unknown) => {
        // Put the batch back so the next flush retries it.
        for (const [day, perDay] of batch) for (const [id, n] of perDay) add(pending, day, id, n);
        pendingTotal += total;
        traffic.putBack(trafficBatch);
        throw err;
      })
      .finally(() => {
        flushing = null;
      });
    await flushing;
    flushedAt = Date.now();
  }

  return {
    /**
     * Counts one page view (call only for HTML pages of live sites) from `client` (the address the
     * request came from, X-Forwarded-For's with TRUST_PROXY), unless the same visitor's view of the
     * project was counted within the window. `page` goes to the owner's analytics (every page
     * view, not once per visitor: top pages and referrers count page views).
     */
    count(projectId: number, meta: RequestMeta, page?: PageView): void {
      const { userAgent, ip } = meta;
      // A browser sends the same User-Agent with every page: tested once.
      if (userAgent !== lastAgent) {
        lastAgent = userAgent;
        lastAgentIsBot = isBot(userAgent);
      }
      if (lastAgentIsBot || userAgent === undefined) return;
      if (page) traffic.page(utcDay(Date.now()), projectId, page.path, page.referer, page.host);
      const visitor = visitorHash(projectId, ip, userAgent);
      if (!recent.firstVisit(visitor, Date.now())) return;
      if (shared) shared.check(projectId, visitor, () => countOne(projectId));
      else countOne(projectId);
    },
    /** Bytes of a body sent for a live site (every answer, bots' too: bytes served are bytes served). */
    bytes(projectId: number, n: number): void {
      traffic.bytes(utcDay(Date.now()), projectId, n);
    },
    flush,
    /** Views counted and not yet written. */
    pendingCount(): number {
      return pendingTotal;
    },
    /** When everything counted was last written (epoch ms). */
    lastFlushAt(): number {
      return flushedAt;
    },
    /** The last flush, at shutdown. */
    close: flush,
  };
}
export type ViewCounter = ReturnType<typeof createViewCounter>;
