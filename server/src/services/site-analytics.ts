/**
 * A site's analytics for its owner, without cookies (docs/notifications.md "Owner analytics"):
 * views per day (the view counter's visitor-deduplicated count), top pages, referring hosts and
 * bytes served. The serving path hands each page view's path and Referer, and each answer's
 * length, to `SiteTraffic`, which only adds to maps in memory; the view counter's flush writes
 * them in its own transaction (services/views.ts). No address, cookie or visitor id is kept:
 * a referrer is reduced to its host name, and a page to the site file it served (a single-page
 * app's route to the address asked, without its query: serve/site-request.ts `page`).
 */
import { ANALYTICS_DAYS, ANALYTICS_TOP, type ProjectAnalyticsData } from '@sitehall/contracts';
import type { DB } from '../db/database.js';
import * as projectDailyViews from '../repositories/project-daily-views.js';
import * as analytics from '../repositories/site-analytics.js';

/**
 * Distinct (project, path) and (project, host) keys one batch holds at most: past it a batch
 * still counts views and bytes but no new page or host (a flood of made-up Referers can't grow
 * memory or the tables without bound between two flushes).
 */
export const MAX_BATCH_KEYS = 20_000;
/**
 * Distinct pages, and distinct referring hosts, one site's day keeps at most: a single-page app's
 * routes are pages (the address asked: serve/site-request.ts `page`), and anyone can ask for made-up
 * ones or send made-up Referers, so without this a site's rows would grow with every flush. A new
 * page or host past it that day is not listed; its views still count in the day's views.
 */
export const MAX_DAY_KEYS = 1_000;
/** Longest path or host kept. */
const MAX_KEY_LENGTH = 300;

/** Counts of one UTC day: "id\tpath" → views, "id\thost" → views, id → bytes. */
interface DayTraffic {
  pages: Map<string, number>;
  referrers: Map<string, number>;
  bytes: Map<number, number>;
}
export type TrafficBatch = Map<string, DayTraffic>;

/** The host of a Referer, lower-cased; null for none, a bad one, or the site's own host. */
export function referrerHost(referer: string | undefined, ownHost: string | undefined): string | null {
  if (!referer) return null;
  let host: string;
  try {
    const url = new URL(referer);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    host = url.hostname.toLowerCase();
  } catch {
    return null;
  }
  if (!host || host.length > MAX_KEY_LENGTH) return null;
  // Moving between pages of the same site is not a referral.
  if (ownHost) {
    const colon = ownHost.lastIndexOf(':');
    const own = (colon > ownHost.lastIndexOf(']') ? ownHost.slice(0, colon) : ownHost).toLowerCase();
    if (own === host || own === `[${host}]` || `[${own}]` === host) return null;
  }
  return host;
}

export class SiteTraffic {
  #batch: TrafficBatch = new Map();
  #keys = 0;

  #day(day: string): DayTraffic {
    let d = this.#batch.get(day);
    if (!d) {
      d = { pages: new Map(), referrers: new Map(), bytes: new Map() };
      this.#batch.set(day, d);
    }
    return d;
  }

  #add(into: Map<string, number>, key: string, n: number) {
    const had = into.get(key);
    if (had !== undefined) into.set(key, had + n);
    else if (this.#keys < MAX_BATCH_KEYS) {
      into.set(key, n);
      this.#keys++;
    }
  }

  /** A page view of a live site: the site file it served, and the Referer's host if another site's. */
  page(
    day: string,
    projectId: number,
    path: string,
    referer: string | undefined,
    ownHost: string | undefined,
  ) {
    const d = this.#day(day);
    if (path.length <= MAX_KEY_LENGTH) this.#add(d.pages, `${projectId}\t${path}`, 1);
    const host = referer === undefined ? null : referrerHost(referer, ownHost);
    if (host) this.#add(d.referrers, `${projectId}\t${host}`, 1);
  }

  /** Bytes of an answer's body sent for a live site. */
  bytes(day: string, projectId: number, n: number) {
    if (n <= 0) return;
    const d = this.#day(day);
    d.bytes.set(projectId, (d.bytes.get(projectId) ?? 0) + n);
  }

  get empty(): boolean {
    return this.#batch.size === 0;
  }

  /** Hands over what was counted, and starts a new batch. */
  take(): TrafficBatch {
    const batch = this.#batch;
    this.#batch = new Map();
    this.#keys = 0;
    return batch;
  }

  /** A batch whose write failed comes back, to be written with the next. */
  putBack(batch: TrafficBatch) {
    for (const [day, t] of batch) {
      const d = this.#day(day);
      for (const [k, n] of t.pages) this.#add(d.pages, k, n);
      for (const [k, n] of t.referrers) this.#add(d.referrers, k, n);
      for (const [id, n] of t.bytes) d.bytes.set(id, (d.bytes.get(id) ?? 0) + n);
    }
  }
}

/** The projects a batch counted anything for. */
export function trafficProjects(batch: TrafficBatch): Set<number> {
  const ids = new Set<number>();
  for (const t of batch.values()) {
    for (const id of t.bytes.keys()) ids.add(id);
    for (const k of [...t.pages.keys(), ...t.referrers.keys()]) ids.add(Number(k.slice(0, k.indexOf('\t'))));
  }
  return ids;
}

/** Writes a batch in the view flush's transaction, in one global order (project, day, key). */
export async function writeTraffic(trx: DB, batch: TrafficBatch, exists: (projectId: number) => boolean) {
  const split = (key: string) => {
    const tab = key.indexOf('\t');
    return [Number(key.slice(0, tab)), key.slice(tab + 1)] as const;
  };
  type Row = { id: number; day: string; key: string; n: number };
  const pages: Row[] = [];
  const referrers: Row[] = [];
  const bytes: Row[] = [];
  for (const [day, t] of batch) {
    for (const [k, n] of t.pages) {
      const [id, key] = split(k);
      pages.push({ id, day, key, n });
    }
    for (const [k, n] of t.referrers) {
      const [id, key] = split(k);
      referrers.push({ id, day, key, n });
    }
    for (const [id, n] of t.bytes) bytes.push({ id, day, key: '', n });
  }
  const order = (a: Row, b: Row) => a.id - b.id || a.day.localeCompare(b.day) || a.key.localeCompare(b.key);
  for (const r of bytes.sort(order)) if (exists(r.id)) await analytics.addBytes(trx, r.id, r.day, r.n);
  const pageRows = await withinDayKeys(
    trx,
    { table: 'project_daily_pages', column: 'path' },
    pages.sort(order),
    exists,
  );
  for (const r of pageRows) await analytics.addPage(trx, r.id, r.day, r.key, r.n);
  const hostRows = await withinDayKeys(
    trx,
    { table: 'project_daily_referrers', column: 'host' },
    referrers.sort(order),
    exists,
  );
  for (const r of hostRows) await analytics.addReferrer(trx, r.id, r.day, r.key, r.n);
}

/**
 * The rows (sorted by project, day and key) of projects that exist, without the new keys that
 * would take a site's day past MAX_DAY_KEYS; of those, the most viewed are kept. One count per
 * site and day; the keys already held are read only when the batch could pass the limit.
 */
async function withinDayKeys<R extends { id: number; day: string; key: string; n: number }>(
  trx: DB,
  of: Parameters<typeof analytics.keysOfDay>[1],
  rows: readonly R[],
  exists: (projectId: number) => boolean,
): Promise<R[]> {
  const kept: R[] = [];
  for (let start = 0; start < rows.length; ) {
    const { id, day } = rows[start]!;
    let end = start;
    while (end < rows.length && rows[end]!.id === id && rows[end]!.day === day) end++;
    const group = rows.slice(start, end);
    start = end;
    if (!exists(id)) continue;
    const held = await analytics.keysOfDayCount(trx, of, id, day);
    if (held + group.length <= MAX_DAY_KEYS) {
      for (const r of group) kept.push(r);
      continue;
    }
    const known = new Set(await analytics.keysOfDay(trx, of, id, day));
    let room = Math.max(0, MAX_DAY_KEYS - known.size);
    const admitted = new Set(
      group
        .filter((r) => !known.has(r.key))
        .sort((a, b) => b.n - a.n)
        .filter(() => room-- > 0)
        .map((r) => r.key),
    );
    for (const r of group) if (known.has(r.key) || admitted.has(r.key)) kept.push(r);
  }
  return kept;
}

/** The owner's analytics of one project: the last ANALYTICS_DAYS UTC days. */
export async function projectAnalytics(
  db: DB,
  projectId: number,
  today = new Date(),
): Promise<ProjectAnalyticsData> {
  const days: string[] = [];
  for (let i = ANALYTICS_DAYS - 1; i >= 0; i--)
    days.push(new Date(today.getTime() - i * 86_400_000).toISOString().slice(0, 10));
  const from = days[0]!;
  const [views, bytes, top_pages, referrers] = await Promise.all([
    projectDailyViews.ofProjectFrom(db, projectId, from),
    analytics.bytesByDay(db, projectId, from),
    analytics.topPages(db, projectId, from, ANALYTICS_TOP),
    analytics.topReferrers(db, projectId, from, ANALYTICS_TOP),
  ]);
  const viewsOf = new Map(views.map((r) => [r.day, Number(r.views)]));
  const perDay = days.map((day) => ({ day, views: viewsOf.get(day) ?? 0, bytes: bytes.get(day) ?? 0 }));
  return {
    days: perDay,
    top_pages,
    referrers,
    total_views: perDay.reduce((s, d) => s + d.views, 0),
    total_bytes: perDay.reduce((s, d) => s + d.bytes, 0),
  };
}
