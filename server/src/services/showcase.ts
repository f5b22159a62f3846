/**
 * The public showcase: live, public ("listed") projects only, sorted latest | popular | name,
 * optionally featured only, and searched over name, description, site name and author; a search
 * of several words finds the projects that hold each of them.
 *
 * Search finds substrings of any length, one Chinese character included, and stays fast at
 * 100,000 projects on both engines (figures in docs/benchmarks.md, reasons in docs/decisions.md).
 * The search module does the work: search/plan.ts plans a search (pure), search/sql.ts holds
 * each engine's SQL, search/index-maintenance.ts keeps the index. This service decides which
 * statement answers, applies queued changes before an answer and remembers match counts.
 */
import { messages, type ShowcaseSort } from '@sitehall/contracts';
import type { DB } from '../db/database.js';
import type { Dialect as MigrationDialect } from '../db/dialect.js';
import { Invalid } from '../domain/errors.js';
import { bloomFalsePass } from '../search/bloom.js';
import { createIndexMaintenance } from '../search/index-maintenance.js';
import {
  type AuthorPlan,
  collectByOwners,
  countAndSortFirst,
  countLimit,
  hashableHolders,
  hashOverProbes,
  MAX_WORDS,
  mixedStrategy,
  normaliseTerm,
  OVERLAP_MAX,
  ownersExpected,
  pageStrategy,
  planAuthors,
  planOwners,
  planSearch,
  planWords,
  type SearchPlan,
  searchWords,
  termGrams,
  WALK_AHEAD,
  walkAheadPasses,
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

/** A term's matches as counted, for the index version they were counted in. */
interface Counted {
  version: number;
  /** Matches, at least this many when `capped`. */
  total: number;
  capped: boolean;
  /** The limit the text's matches were counted up to (countLimit). */
  limit: number;
  /** Listed projects of the authors the term names (0: a search of the projects' text alone). */
  authorProjects: number;
  /** Rows a sort of every match reads (searches that find authors). */
  sorted: number;
}

export function createShowcaseService(
  db: DB,
  dialect: MigrationDialect,
  opts: { rememberCounts?: boolean; countCap?: number } = {},
) {
  const q = createSearchSql(db, dialect);
  const index = createIndexMaintenance(db, q);
  const rememberedCounts = new Map<string, Counted>();
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

  /**
   * The remembered count of a search (`term` as typed, normalised) in the index `version`, usable
   * for a count up to `limit`, and how to remember a new one.
   */
  function counts(page: ShowcasePage, term: string, version: number, limit: number) {
    const key = `${page.featured ? 1 : 0}:${term}`;
    const remembered = opts.rememberCounts === false ? undefined : rememberedCounts.get(key);
    const known =
      remembered?.version === version && (!remembered.capped || remembered.limit >= limit)
        ? remembered
        : undefined;
    const remember = (found: Omit<Counted, 'version' | 'limit'>) => {
      if (rememberedCounts.size >= REMEMBERED_COUNTS) rememberedCounts.clear();
      const counted = { version, limit, ...found };
      rememberedCounts.set(key, counted);
      return counted;
    };
    return { known, remember };
  }

  async function search(page: ShowcasePage, term: string) {
    const words = searchWords(term);
    if (words.length > MAX_WORDS) throw new Invalid('search', messages.common.searchInvalid);
    if (words.length > 1) return searchAll(page, term, words);
    // A word another holds is left out: `博 博客` is the search for 博客.
    term = words[0]!;
    const info = await overview(termGrams(term));
    const byGram = [...info.counts];
    const plan = planSearch(term, {
      featured: page.featured,
      listed: page.featured ? info.featured : info.listed,
      holders: new Map(byGram.map(([g, c]) => [g, page.featured ? c.featured : c.listed])),
      dialect,
    });
    // Authors are indexed apart from their projects' text (docs/decisions/serving.md "Authors
    // apart"): a term no listed author's username can hold is a search of the text alone.
    const authors = planAuthors(term, new Map(byGram.map(([g, c]) => [g, c.authors])));
    if (!plan && !authors) return { rows: [], total: 0, capped: false };

    const limit = countLimit(page.page, page.pageSize, opts.countCap);
    const memo = counts(page, term, info.version, limit);
    let known = memo.known;
    const remember = (found: Omit<Counted, 'version' | 'limit'>) => {
      known = memo.remember(found);
      return known;
    };

    if (authors && !known) {
      // A 1–2 character term's authors' projects come with its gram's counts.
      const c = info.counts.get(authors.rarest);
      const named = authors.exact && c ? (page.featured ? c.authorFeatured : c.authorListed) : undefined;
      const counted = await countMixed(plan, authors, page.featured, limit, named);
      if (counted) known = remember(counted);
    }
    if (authors && known && known.authorProjects > 0) {
      const strategy = mixedStrategy(dialect, page, {
        listed: page.featured ? info.featured : info.listed,
        sorted: known.sorted,
        total: known.total,
        textTested: plan !== null,
        authorHolders: authors.holders,
        authorsExact: authors.exact,
      });
      const rows =
        strategy === 'sort'
          ? await q.sortMixed(plan, authors, page)
          : await q.walkMixed(plan, authors, page, strategy === 'probed walk');
      return { rows: rows.map(cardOf), total: known.total, capped: known.capped };
    }
    if (!plan) {
      remember({ total: 0, capped: false, authorProjects: 0, sorted: 0 });
      return { rows: [], total: 0, capped: false };
    }
    return searchOwnText(page, plan, known, limit, remember);
  }

  /**
   * A search of the projects' own text (`plan`), words of an author's name tested too when it
   * has any (plan.either): counted (unless `known`), then the page sorted or walked.
   */
  async function searchOwnText(
    page: ShowcasePage,
    plan: SearchPlan,
    known: Counted | undefined,
    limit: number,
    remember: (found: Omit<Counted, 'version' | 'limit'>) => Counted,
  ) {
    let total = plan.exact ? plan.rarestHolders : known?.total;
    let capped = plan.exact ? false : (known?.capped ?? false);
    const rememberText = (n: number, isCapped: boolean) =>
      remember({ total: n, capped: isCapped, authorProjects: 0, sorted: 0 }).total;
    if (total === undefined && countAndSortFirst(plan, limit)) {
      const found = await q.countAndSort(plan, page, limit);
      if (found.n < limit)
        return { rows: found.rows.map(cardOf), total: rememberText(found.n, false), capped: false };
      total = rememberText(found.n, true);
      capped = true;
    }
    if (total === undefined) {
      const ahead = walkAhead(plan, page, limit);
      // Its failure, when the count fails first (or it is not waited for), is not left unhandled.
      ahead.then(
        (walk) => walk?.rows.catch(() => undefined),
        () => undefined,
      );
      const n = await q.count(plan, limit);
      capped = n >= limit;
      total = rememberText(n, capped);
      const walk = await ahead;
      // A walk bounded by its bits' passes reads as far as it takes to meet them: with fewer
      // matches than expected it is not waited for (the page's own plan answers below), and its
      // statement ends on its connection.
      const rows = walk && (capped || !walk.byPasses) ? await walk.rows : undefined;
      if (rows && rows.length === pageRows(page, { total, capped }))
        return { rows: rows.map(cardOf), total, capped };
    }
    if (total === 0) return { rows: [], total: 0, capped: false };
    const strategy = pageStrategy(plan, page, total, capped, await hashable(), bloomFalsePass(plan.words));
    const rows =
      strategy === 'sort'
        ? await q.sortAll(plan, page)
        : await q.walk(plan, page, strategy === 'hashed walk');
    return { rows: rows.map(cardOf), total, capped };
  }

  /**
   * On PostgreSQL, when a search's matches are expected to reach the count's limit (its page is
   * then walked): the page walked while they are counted, on another of the pool's connections,
   * so that the answer waits for the slower of the two, not for both (在线工具 at 1,000,000
   * projects: a count of 1.9 ms, then a walk of 4.5). It reads at most WALK_AHEAD times the
   * projects a page needs at the limit, so one not needed stays bounded; undefined when not
   * walked ahead.
   */
  async function walkAhead(plan: SearchPlan, page: ShowcasePage, limit: number) {
    if (dialect !== 'postgres' || plan.expected < limit) return undefined;
    const falsePass = bloomFalsePass(plan.words);
    const strategy = pageStrategy(plan, page, limit, true, await hashable(), falsePass);
    if (strategy === 'sort') return undefined;
    const hashed = strategy === 'hashed walk';
    const within = (WALK_AHEAD * page.page * page.pageSize * plan.listed) / limit;
    // When the words name bits, the bound is on the projects whose bits pass, tested in the order
    // index's own scan (plan.ts walkAheadPasses), not on the first `within` listed projects.
    if (falsePass < 1) {
      const passes = walkAheadPasses(within, plan.expected, plan.listed, limit, falsePass);
      return { rows: q.walk(plan, page, hashed, passes, true), byPasses: true };
    }
    return { rows: q.walk(plan, page, hashed, within), byPasses: false };
  }

  /**
   * A search of several words, each held somewhere by every match (plan.ts planWords): through
   * the projects' own text when a word can be nowhere else, else led by one word's text and
   * authors, the others tested on what it finds. Counted up to the limit ("N+" past it), as a
   * longer term is.
   */
  async function searchAll(page: ShowcasePage, term: string, words: string[]) {
    const info = await overview([...new Set(words.flatMap(termGrams))]);
    const byGram = [...info.counts];
    const listed = page.featured ? info.featured : info.listed;
    const ownHolders = new Map(byGram.map(([g, c]) => [g, page.featured ? c.featured : c.listed]));
    const authorHolders = new Map(byGram.map(([g, c]) => [g, c.authors]));
    const authorProjects = new Map(
      byGram.map(([g, c]) => [g, page.featured ? c.authorFeatured : c.authorListed]),
    );
    const planned = planWords(words, {
      featured: page.featured,
      listed,
      holders: ownHolders,
      authorHolders,
      authorProjects,
      dialect,
    });
    if (!planned) return { rows: [], total: 0, capped: false };
    const limit = countLimit(page.page, page.pageSize, opts.countCap);
    const memo = counts(page, term, info.version, limit);
    const { plan, authors } = planned;
    if (!authors) return searchOwnText(page, plan!, memo.known, limit, memo.remember);

    // The rows a sort reads: the leading word's text candidates and its authors' projects.
    const named = info.counts.get(authors.rarest)?.[page.featured ? 'authorFeatured' : 'authorListed'] ?? 0;
    const sorted = (plan?.rarestHolders ?? 0) + named;
    let known = memo.known;
    // Author by author when few authors' names may hold a word (plan.ts planOwners): fewer
    // matches than the limit are found, counted and sorted in one pass, which reads fewer
    // candidates than a sort led by one word; more, and the page is walked as below.
    const owners = planOwners(words, {
      featured: page.featured,
      listed,
      holders: ownHolders,
      authorHolders,
      dialect,
    });
    const strategyOf = (total: number) =>
      mixedStrategy(dialect, page, {
        listed,
        sorted,
        total,
        textTested: plan !== null,
        authorHolders: authors.holders,
        authorsExact: authors.exact,
      });
    // On PostgreSQL a walk of the page at `total` matches tests the text's rarest gram in a hash
    // of its holders when they fit and hashing them costs less than probing the walked projects
    // their blooms leave (a probe costs 1.8 µs there: PG_COST; plan.ts hashOverProbes).
    const hashes = async (p: SearchPlan | null, total: number) =>
      p !== null &&
      dialect === 'postgres' &&
      p.rarestHolders <= (await hashable()) &&
      hashOverProbes(
        p.rarestHolders,
        listed,
        (page.page * page.pageSize * listed) / Math.max(total, 1),
        bloomFalsePass(p.words),
      );
    // Counted already, a walk is taken when it is the cheaper way to the page.
    if (owners && (!known || (!known.capped && collectByOwners(owners, page, listed, known.total)))) {
      // On PostgreSQL, when the page is expected to be walked (the matches reach the limit, or
      // are many enough that a walk finds the page sooner than they are sorted: `react 地图` at
      // 100,000 projects, 481 matches, a sort of them 1.6 ms and a walk of 2,500 projects 0.7),
      // the page is walked while they are counted, on another of the pool's connections: the
      // answer waits for the slower of the two, not for both, and the count sorts nothing. The
      // walk reads at most WALK_AHEAD times the projects a page needs at the matches expected,
      // so one not needed stays bounded.
      const expected = Math.max(
        1,
        Math.min(limit, ownersExpected(owners, ownHolders, authorProjects, listed)),
      );
      const ahead =
        !known &&
        dialect === 'postgres' &&
        (expected >= limit || !collectByOwners(owners, page, listed, expected)) &&
        strategyOf(expected) !== 'sort'
          ? q.walkByOwners(
              owners,
              page,
              await hashes(owners.own, expected),
              (WALK_AHEAD * page.page * page.pageSize * listed) / expected,
            )
          : undefined;
      // Its failure, when the count fails first or answers alone, is not left unhandled.
      ahead?.catch(() => undefined);
      const found = await q.countAndSortByOwners(owners, page, limit, !ahead);
      const total = found.n;
      known = memo.remember({ total, capped: total >= limit, authorProjects: named, sorted });
      if (!known.capped && !ahead) return { rows: found.rows.map(cardOf), total, capped: false };
      const rows = await ahead;
      if (rows && rows.length === pageRows(page, known))
        return { rows: rows.map(cardOf), total, capped: known.capped };
    }
    if (!known) {
      const n = await q.countEither(plan, authors, page.featured, limit);
      known = memo.remember({ total: n, capped: n >= limit, authorProjects: named, sorted });
    }
    if (known.total === 0) return { rows: [], total: 0, capped: false };
    const strategy = strategyOf(known.total);
    if (owners && strategy !== 'sort' && dialect === 'postgres') {
      // On PostgreSQL, walked as counted, author by author: a walked project's owner is tested
      // among the authors whose names may hold a word, and its own text only for every word (the
      // rarest gram of them all), where a walk led by one word probes that word's gram in every
      // project's text (1.8 µs a probe there: `zhang react` at 1,000,000 projects, 2,879 projects
      // walked). On SQLite a probe costs 0.27 µs and the walk led by one word was the faster in
      // a same-file A/B (docs/benchmarks.md "Walked as counted").
      const rows = await q.walkByOwners(owners, page, await hashes(owners.own, known.total));
      return { rows: rows.map(cardOf), total: known.total, capped: known.capped };
    }
    const hashedText = await hashes(plan, known.total);
    const rows =
      strategy === 'sort'
        ? await q.sortMixed(plan, authors, page)
        : await q.walkMixed(plan, authors, page, strategy === 'probed walk', hashedText);
    return { rows: rows.map(cardOf), total: known.total, capped: known.capped };
  }

  /**
   * The matches of a term found both in projects' own text (`plan`, null when the text holds a
   * gram of it nowhere) and in authors' names: each project counted once, by testing the smaller
   * side against the other (plan.ts OVERLAP_MAX); past that, or when the text's own count stopped
   * at `limit`, the total is a lower bound. Null when the term names no author with a listed
   * project in scope (a search of the text alone); a longer term's text count comes in the same
   * query as its authors, and is kept for that search.
   */
  async function countMixed(
    plan: SearchPlan | null,
    authors: AuthorPlan,
    featured: boolean,
    limit: number,
    /** The named authors' listed (featured) projects, when known already (a 1–2 character term). */
    named?: number,
  ): Promise<Omit<Counted, 'version' | 'limit'> | null> {
    const found = (authorProjects: number, total: number, capped: boolean, textRows: number) => ({
      total,
      capped,
      authorProjects,
      sorted: textRows + authorProjects,
    });
    const overlapByAuthors = async (text: number, authorProjects: number) =>
      authorProjects <= OVERLAP_MAX
        ? found(authorProjects, text + authorProjects - (await q.authorsOverlap(plan!, authors)), false, text)
        : found(authorProjects, Math.max(text, authorProjects), true, text);
    if (plan && !plan.exact) {
      const side = await q.textSide(plan, authors, limit);
      if (side.projects === 0) return found(0, side.n, side.n >= limit, 0);
      // The authors' projects alone reach the limit (the text was not counted), or the text's do.
      if (side.projects >= limit || side.n >= limit)
        return found(side.projects, Math.max(side.n, side.projects), true, plan.rarestHolders);
      if (side.n <= OVERLAP_MAX)
        return found(side.projects, side.n + side.projects - side.overlap, false, side.n);
      return overlapByAuthors(side.n, side.projects);
    }
    const projects = named ?? (await q.authorSummary(authors, featured)).projects;
    if (projects === 0) return null;
    if (!plan) return found(projects, projects, false, 0);
    if (plan.rarestHolders > OVERLAP_MAX) return overlapByAuthors(plan.rarestHolders, projects);
    const side = await q.textSide(plan, authors, plan.rarestHolders + 1);
    return found(projects, side.n + projects - side.overlap, false, side.n);
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
    entry_file: r.entry_file ?? null,
  };
}

/**
 * The rows page `page` of `counted` matches has (a capped count: at least a full page, the limit
 * being past it). A walk of the first listed projects in order that finds this many finds the
 * page: the matches it finds are the first, in order.
 */
function pageRows(page: ShowcasePage, counted: { total: number; capped: boolean }): number {
  if (counted.capped) return page.pageSize;
  return Math.max(0, Math.min(page.pageSize, counted.total - (page.page - 1) * page.pageSize));
}
