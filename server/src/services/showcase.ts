/**
 * The public showcase: live, public ("listed") projects only, sorted latest | popular | name,
 * optionally featured only, and searched over name, description and author.
 *
 * Search finds substrings of any length, one Chinese character included, and stays fast at
 * 100,000 projects on both engines (figures in docs/benchmarks.md, reasons in docs/decisions.md).
 * The search module does the work: search/plan.ts plans a search (pure), search/sql.ts holds
 * each engine's SQL, search/index-maintenance.ts keeps the index. This service decides which
 * statement answers, applies queued changes before an answer and remembers match counts.
 */
import type { ShowcaseSort } from '@sitehall/contracts';
import type { DB } from '../db/database.js';
import type { Dialect as MigrationDialect } from '../db/dialect.js';
import { createIndexMaintenance } from '../search/index-maintenance.js';
import {
  countAndSortFirst,
  countLimit,
  hashableHolders,
  normaliseTerm,
  pageStrategy,
  planSearch,
  termGrams,
} from '../search/plan.js';
import { createSearchSql, QUEUE_BATCH, type ShowcasePage, type ShowcaseRow } from '../search/sql.js';

export type { ShowcaseRow } from '../search/sql.js';

export interface ShowcaseQuery {
  search?: string;
  sort: ShowcaseSort;
  featured: boolean;
  page: number;
  pageSize: number;
}

/**
 * Times an answer applies the queue and looks again. Rows another process is applying (locked,
 * skipped here) stay queued for a moment: after this, the answer goes ahead without them.
 */
const MAX_APPLY_ATTEMPTS = 3;

/**
 * Whether an answer applies the queue first: what a visitor or an owner just changed is a few
 * entries, applied in one transaction. A backlog longer than a batch (after a restore, or an
 * upgrade that queues every project: 15 minutes at 1,000,000 projects) is the background job's
 * (jobs/timed.ts); answers meanwhile come from the index as it stands instead of waiting for it.
 */
function catchUp(queued: number, attempt: number): boolean {
  return queued > 0 && queued <= QUEUE_BATCH && attempt <= MAX_APPLY_ATTEMPTS;
}
/** Match counts of searched terms remembered until the index changes. */
const REMEMBERED_COUNTS = 2000;

export function createShowcaseService(
  db: DB,
  dialect: MigrationDialect,
  opts: { rememberCounts?: boolean; countCap?: number } = {},
) {
  const q = createSearchSql(db, dialect);
  const index = createIndexMaintenance(db, q);
  const rememberedCounts = new Map<string, { version: number; total: number; capped: boolean }>();
  /**
   * The most holders a walk may hash: on PostgreSQL from its settings, read once (a changed
   * work_mem counts from the next start) and asked again after a failure; none on SQLite.
   */
  let maxHashed: Promise<number> | undefined;
  const hashable = () => {
    maxHashed ??= q
      .hashMemory()
      .then((bytes) => (bytes === null ? 0 : hashableHolders(bytes)))
      .catch((error: unknown) => {
        maxHashed = undefined;
        throw error;
      });
    return maxHashed;
  };

  async function listAll(page: ShowcasePage) {
    for (let attempt = 1; ; attempt++) {
      const r = await q.listAll(page);
      if (catchUp(r.queued, attempt)) {
        await index.applyQueue();
        continue;
      }
      return { rows: r.rows.map(cardOf), total: page.featured ? r.featured : r.listed, capped: false };
    }
  }

  async function overview(grams: string[]) {
    for (let attempt = 1; ; attempt++) {
      const info = await q.overview(grams);
      if (catchUp(info.queued, attempt)) {
        await index.applyQueue();
        continue;
      }
      return info;
    }
  }

  async function search(page: ShowcasePage, term: string) {
    const info = await overview(termGrams(term));
    const holders = new Map(
      [...info.counts].map(([g, c]) => [g, page.featured ? c.featured : c.listed] as [string, number]),
    );
    const plan = planSearch(term, {
      featured: page.featured,
      listed: page.featured ? info.featured : info.listed,
      holders,
      dialect,
    });
    if (!plan) return { rows: [], total: 0, capped: false };

    const limit = countLimit(page.page, page.pageSize, opts.countCap);
    let total = plan.exact ? plan.rarestHolders : undefined;
    let capped = false;
    const key = `${page.featured ? 1 : 0}:${term}`;
    const remembered = opts.rememberCounts === false ? undefined : rememberedCounts.get(key);
    if (
      total === undefined &&
      remembered?.version === info.version &&
      (!remembered.capped || remembered.total >= limit)
    ) {
      ({ total, capped } = remembered);
    }
    const remember = (n: number, isCapped: boolean) => {
      if (rememberedCounts.size >= REMEMBERED_COUNTS) rememberedCounts.clear();
      rememberedCounts.set(key, { version: info.version, total: n, capped: isCapped });
      return n;
    };
    if (total === undefined && countAndSortFirst(plan, limit)) {
      const found = await q.countAndSort(plan, page, limit);
      if (found.n < limit)
        return { rows: found.rows.map(cardOf), total: remember(found.n, false), capped: false };
      total = remember(found.n, true);
      capped = true;
    }
    if (total === undefined) {
      const n = await q.count(plan, limit);
      capped = n >= limit;
      total = remember(n, capped);
    }
    if (total === 0) return { rows: [], total: 0, capped: false };
    const strategy = pageStrategy(plan, page, total, capped, await hashable());
    const rows =
      strategy === 'sort'
        ? await q.sortAll(plan, page)
        : await q.walk(plan, page, strategy === 'hashed walk');
    return { rows: rows.map(cardOf), total, capped };
  }

  return {
    /**
     * A page of cards and the number of matches; `capped`: a long term's count stopped at the cap,
     * there are at least `total`.
     */
    async list(query: ShowcaseQuery): Promise<{ rows: ShowcaseRow[]; total: number; capped: boolean }> {
      const term = normaliseTerm(query.search);
      const page: ShowcasePage = {
        sort: query.sort,
        featured: query.featured,
        page: query.page,
        pageSize: query.pageSize,
      };
      return term ? search(page, term) : listAll(page);
    },
    /** Applies every queued change to the search index and totals (also done before each answer). */
    refreshIndex: index.applyQueue,
  };
}
export type ShowcaseService = ReturnType<typeof createShowcaseService>;

/** A card's fields, numbers as numbers (PostgreSQL may send bigint as text through joins). */
function cardOf(r: Partial<ShowcaseRow>): ShowcaseRow {
  return {
    id: Number(r.id),
    name: r.name!,
    description: r.description ?? null,
    featured: Number(r.featured),
    approved_at: r.approved_at ?? null,
    view_count: Number(r.view_count),
    owner_username: r.owner_username!,
    site_name: r.site_name ?? null,
    file_count: Number(r.file_count),
    total_size: Number(r.total_size),
    thumbnail_sha256: r.thumbnail_sha256 ?? null,
  };
}
