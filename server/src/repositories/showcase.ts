/**
 * The public showcase: live, public ("listed") projects only, sorted latest | popular | name,
 * optionally featured only, and searched over name, description and author.
 *
 * Search finds substrings of any length, one Chinese character included, and stays fast at
 * 100,000 projects on both engines (figures in docs/benchmarks.md, reasons in docs/decisions.md).
 * A LIKE '%term%' scan reads every row; trigram indexes can't answer 1–2 character terms. So each
 * listed project's normalised text is cut into its distinct 1- and 2-character grams
 * (showcase_grams, with per-gram counts in showcase_gram_counts): a 1- or 2-character term is one
 * gram, answered exactly by the index; a longer term's candidates are the holders of its rarest
 * bigram (and of up to three more from other parts of the term), confirmed by a substring test
 * of the indexed text (showcase_entries); their count stops at a cap ("500+").
 *
 * Triggers on projects queue every change that may alter a listing (migration 002); the queue is
 * applied here, before an answer, so the index is never behind what the caller just did, whatever
 * code made the change. The listed totals are kept as the queue is applied.
 */
import type { ShowcaseSort } from '@sitehall/contracts';
import { type RawBuilder, type SqlBool, sql } from 'kysely';
import type { DB } from '../db/database.js';
import type { MigrationDialect } from '../db/migrations/helpers.js';
import type { Flag } from '../db/types.js';

export function likePattern(term: string): string {
  return `%${term.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** What search compares: NFKC (full-width letters and digits fold to ASCII), lower-case. */
export function searchForm(text: string): string {
  return text.normalize('NFKC').toLowerCase();
}

/**
 * The distinct 1- and 2-character grams of a normalised text, by code point, line by line: the
 * name, description and author are lines of search_text, and no gram spans two of them.
 */
export function gramsOf(text: string): Set<string> {
  const grams = new Set<string>();
  for (const line of text.split('\n')) {
    const chars = Array.from(line);
    for (let i = 0; i < chars.length; i++) {
      grams.add(chars[i]!);
      if (i + 1 < chars.length) grams.add(chars[i]! + chars[i + 1]!);
    }
  }
  return grams;
}

/** The grams every match of a normalised term holds: the term itself up to 2 characters, else its bigrams. */
export function termGrams(term: string): string[] {
  const chars = Array.from(term);
  if (chars.length <= 2) return [term];
  const grams = new Set<string>();
  for (let i = 0; i + 1 < chars.length; i++) grams.add(chars[i]! + chars[i + 1]!);
  return [...grams];
}

export interface ShowcaseQuery {
  search?: string;
  sort: ShowcaseSort;
  featured: boolean;
  page: number;
  pageSize: number;
}

/** A showcase card's row. */
export interface ShowcaseRow {
  id: number;
  name: string;
  description: string | null;
  featured: number;
  approved_at: string | null;
  view_count: number;
  owner_username: string;
  file_count: number;
  total_size: number;
  /** The live version's rendered picture (docs/render.md), null until rendered. */
  thumbnail_sha256: string | null;
}

/** Queue entries applied per transaction (a bulk backlog blocks SQLite for about this many). */
const QUEUE_BATCH = 1000;
/** Rows per statement when writing grams (sent as arrays: a few parameters whatever the count). */
const WRITE_CHUNK = 20_000;
/** Sorting a match costs about this many times testing one project on the walk (measured). */
const SORT_COST = 5;
/**
 * Times an answer applies the queue and looks again. Rows another process is applying (locked,
 * skipped here) stay queued for a moment: after this, the answer goes ahead without them.
 */
const MAX_APPLY_ATTEMPTS = 3;
/** Match counts of searched terms remembered until the index changes. */
const REMEMBERED_COUNTS = 2000;
/**
 * A 3+ character term's matches are counted up to this many (or one past the page asked for):
 * each needs its text tested, and a term with more matches shows "500+" (docs/decisions.md).
 */
const COUNT_CAP = 500;
/** Besides the rarest, at most this many of a longer term's grams narrow the candidates. */
const MAX_NARROWING = 3;

/** Each sort's ORDER BY; name is pinyin order (services/name-order.ts), bytes compared on both engines. */
function orders(pg: boolean): Record<ShowcaseSort, RawBuilder<unknown>> {
  const bytes = pg ? sql` collate "C"` : sql``;
  return {
    latest: sql`p.approved_at desc, p.id desc`,
    popular: sql`p.view_count desc, p.id desc`,
    name: sql`p.name_sort_key${bytes} asc, p.name${bytes} asc, p.id asc`,
  };
}

// name_sort_key: the outer queries order by it too.
const PAGE_COLUMNS = sql`p.id, p.name, p.description, p.featured, p.approved_at, p.view_count, p.owner_id,
  p.live_deployment_id, p.name_sort_key`;
const CARD_COLUMNS = sql`p.id, p.name, p.description, p.featured, p.approved_at, p.view_count,
  u.username as owner_username, d.file_count, d.total_size, d.thumbnail_sha256, p.name_sort_key`;

export function createShowcaseRepository(
  db: DB,
  dialect: MigrationDialect,
  opts: { rememberCounts?: boolean; countCap?: number } = {},
) {
  const countCap = opts.countCap ?? COUNT_CAP;
  const pg = dialect === 'postgres';
  const ORDER = orders(pg);
  /** A list of text as one parameter: a PostgreSQL array, or a JSON array on SQLite. */
  const textList = (values: string[]) =>
    pg
      ? sql<string>`(select unnest(${values}::text[]))`
      : sql<string>`(select value from json_each(${JSON.stringify(values)}))`;
  const contains = (text: RawBuilder<unknown>, term: string) =>
    pg ? sql<SqlBool>`strpos(${text}, ${term}) > 0` : sql<SqlBool>`instr(${text}, ${term}) > 0`;

  // ---- Keeping the index ---------------------------------------------------------------------

  async function applyQueueBatch(): Promise<number> {
    return db.transaction().execute(async (trx) => {
      let claim = trx
        .selectFrom('showcase_queue')
        .select('project_id')
        .orderBy('project_id')
        .limit(QUEUE_BATCH);
      // Another process applying the queue at the same time takes other rows.
      if (pg) claim = claim.forUpdate().skipLocked();
      const ids = (await claim.execute()).map((r) => r.project_id);
      if (ids.length === 0) return 0;
      const projects = await trx
        .selectFrom('projects')
        .select(['id', 'search_text', 'live_deployment_id', 'is_public', 'featured'])
        .where('id', 'in', ids)
        .execute();
      const entries = await trx
        .selectFrom('showcase_entries')
        .selectAll()
        .where('project_id', 'in', ids)
        .execute();
      const listedNow = new Map(
        projects
          .filter((p) => p.live_deployment_id !== null && p.is_public === 1)
          .map((p) => [p.id, { featured: (p.featured ? 1 : 0) as Flag, text: searchForm(p.search_text) }]),
      );
      const before = new Map(entries.map((e) => [e.project_id, e]));

      const removed: Array<{ id: number; featured: Flag; grams: string[] }> = [];
      const gramInserts: Array<[string, Flag, number]> = [];
      const added: Array<{ project_id: number; featured: Flag; text: string }> = [];
      const countDelta = new Map<string, [number, number]>();
      const tally = (gram: string, featured: Flag, sign: 1 | -1) => {
        const d = countDelta.get(gram) ?? [0, 0];
        d[0] += sign;
        d[1] += sign * featured;
        countDelta.set(gram, d);
      };
      let listedDelta = 0;
      let featuredDelta = 0;
      for (const id of ids) {
        const old = before.get(id);
        const next = listedNow.get(id);
        if (old && next && old.text === next.text && old.featured === next.featured) continue;
        if (old) {
          const grams = [...gramsOf(old.text)];
          for (const gram of grams) tally(gram, old.featured, -1);
          removed.push({ id, featured: old.featured, grams });
          listedDelta--;
          featuredDelta -= old.featured;
        }
        if (next) {
          for (const gram of gramsOf(next.text)) {
            gramInserts.push([gram, next.featured, id]);
            tally(gram, next.featured, 1);
          }
          added.push({ project_id: id, ...next });
          listedDelta++;
          featuredDelta += next.featured;
        }
      }

      const byKey = (a: [string, Flag, number], b: [string, Flag, number]) =>
        a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1] || a[2] - b[2];
      for (const r of removed) {
        await trx
          .deleteFrom('showcase_grams')
          .where('featured', '=', r.featured)
          .where('project_id', '=', r.id)
          .where(sql<SqlBool>`gram in ${textList(r.grams)}`)
          .execute();
      }
      if (removed.length > 0) {
        await trx
          .deleteFrom('showcase_entries')
          .where(
            'project_id',
            'in',
            removed.map((r) => r.id),
          )
          .execute();
      }
      // Sorted by key, new rows land next to each other in the index.
      for (const chunk of chunks(gramInserts.sort(byKey), WRITE_CHUNK)) {
        await sql`insert into showcase_grams (gram, featured, project_id) ${rowsOf(chunk)}`.execute(trx);
      }
      for (const chunk of chunks(added, WRITE_CHUNK / 10)) {
        await trx.insertInto('showcase_entries').values(chunk).execute();
      }
      const deltas = [...countDelta].map(([gram, [n, f]]) => [gram, n, f] as [string, number, number]);
      for (const chunk of chunks(deltas, WRITE_CHUNK)) {
        await sql`insert into showcase_gram_counts (gram, listed, featured) ${rowsOf(chunk)}
          on conflict (gram) do update set listed = showcase_gram_counts.listed + excluded.listed,
            featured = showcase_gram_counts.featured + excluded.featured`.execute(trx);
      }
      await trx
        .updateTable('showcase_totals')
        .set({
          listed: sql`listed + ${listedDelta}`,
          featured: sql`featured + ${featuredDelta}`,
          version: sql`version + 1`,
        })
        .where('id', '=', 1)
        .execute();
      await trx.deleteFrom('showcase_queue').where('project_id', 'in', ids).execute();
      return ids.length;
    });
  }

  /** Rows of [text, int, int] as one `select` (three array parameters, or one JSON array). */
  function rowsOf(rows: Array<[string, number, number]>) {
    return pg
      ? sql`select * from unnest(${rows.map((r) => r[0])}::text[], ${rows.map((r) => r[1])}::int[], ${rows.map((r) => r[2])}::int[])`
      : // "where true": SQLite needs it to parse an upsert whose rows come from a select.
        sql`select value ->> 0, value ->> 1, value ->> 2 from json_each(${JSON.stringify(rows)}) where true`;
  }

  let applying: Promise<void> | null = null;
  /** Brings the index up to date; callers at the same time share one run. */
  function applyQueue(): Promise<void> {
    applying ??= (async () => {
      try {
        while ((await applyQueueBatch()) === QUEUE_BATCH) {}
      } finally {
        applying = null;
      }
    })();
    return applying;
  }

  // ---- Answering ------------------------------------------------------------------------------

  const rememberedCounts = new Map<string, { version: number; total: number; capped: boolean }>();

  /** The page's SQL: matching listed projects `p` in order, then their authors and sizes. */
  function pageSql(q: ShowcaseQuery, from: RawBuilder<unknown>, where: RawBuilder<unknown>[]) {
    const conditions = [
      sql`p.live_deployment_id is not null`,
      sql`p.is_public = 1`,
      ...(q.featured ? [sql`p.featured = 1`] : []),
      ...where,
    ];
    // 12 lookups of authors and sizes, not one per match. cross join fixes SQLite's join order to
    // the one written; PostgreSQL keeps it too (join_collapse_limit=1, db/database.ts).
    return sql`select ${CARD_COLUMNS}
      from (select ${PAGE_COLUMNS}
        from ${from} where ${sql.join(conditions, sql` and `)}
        order by ${ORDER[q.sort]} limit ${q.pageSize} offset ${(q.page - 1) * q.pageSize}) p
      cross join users u cross join deployments d
      where u.id = p.owner_id and d.id = p.live_deployment_id`;
  }

  async function page(q: ShowcaseQuery, query: RawBuilder<unknown>) {
    const r = await sql<ShowcaseRow & { matches?: number }>`${query} order by ${ORDER[q.sort]}`.execute(db);
    return r.rows;
  }

  const QUEUED = sql`case when exists (select 1 from showcase_queue) then 1 else 0 end`;

  /** The unsearched list with the listed totals, in one query (one round trip in steady state). */
  async function listAll(q: ShowcaseQuery) {
    for (let attempt = 1; ; attempt++) {
      const r = await sql<
        Partial<ShowcaseRow> & { all_listed: number; all_featured: number; queued: number }
      >`select t.listed as all_listed, t.featured as all_featured, ${QUEUED} as queued, p.*
        from showcase_totals t left join (${pageSql(q, sql`projects p`, [])}) p on 1 = 1
        where t.id = 1 order by ${ORDER[q.sort]}`.execute(db);
      const head = r.rows[0]!;
      if (Number(head.queued) && attempt <= MAX_APPLY_ATTEMPTS) {
        await applyQueue();
        continue;
      }
      const rows = r.rows.filter((row) => row.id != null).map(cardOf);
      return { rows, total: Number(q.featured ? head.all_featured : head.all_listed), capped: false };
    }
  }

  /** The listed totals, the index version and the counts of some grams, in one query. */
  async function overview(grams: string[]) {
    for (let attempt = 1; ; attempt++) {
      const r = await sql<{
        gram: string;
        listed: number;
        featured: number;
        version: number;
        queued: number;
      }>`
        select '' as gram, listed, featured, version, ${QUEUED} as queued from showcase_totals where id = 1
        union all
        select gram, listed, featured, 0, 0 from showcase_gram_counts where gram in (${sql.join(grams)})`.execute(
        db,
      );
      const head = r.rows.find((row) => row.gram === '')!;
      if (Number(head.queued) && attempt <= MAX_APPLY_ATTEMPTS) {
        await applyQueue();
        continue;
      }
      const counts = new Map(
        r.rows
          .filter((row) => row.gram !== '')
          .map((row) => [row.gram, { listed: Number(row.listed), featured: Number(row.featured) }]),
      );
      return {
        listed: Number(head.listed),
        featured: Number(head.featured),
        version: Number(head.version),
        counts,
      };
    }
  }

  async function search(q: ShowcaseQuery, term: string) {
    const chars = Array.from(term);
    const exact = chars.length <= 2;
    const grams = termGrams(term);
    const info = await overview(grams);
    const listed = q.featured ? info.featured : info.listed;
    const holders = new Map(
      grams.map((g) => [g, (q.featured ? info.counts.get(g)?.featured : info.counts.get(g)?.listed) ?? 0]),
    );
    if (grams.some((g) => !holders.get(g))) return { rows: [], total: 0, capped: false };
    const byRarity = [...grams].sort((a, b) => holders.get(a)! - holders.get(b)!);
    const rarest = byRarity[0]!;
    // More grams narrow the candidates before the substring test, which costs far more than an
    // index probe (each candidate's text is read): those held by fewer than half the projects,
    // picked one by one from the part of the term farthest from the grams already picked (nearby
    // bigrams come from the same words and rarely narrow further), the rarer on a tie, none that
    // overlaps one picked.
    const at = (gram: string) =>
      chars.flatMap((_, i) => (chars[i]! + (chars[i + 1] ?? '') === gram ? [i] : []));
    const narrows: string[] = [];
    if (!exact) {
      const picked = at(rarest);
      const left = byRarity.slice(1).filter((g) => holders.get(g)! * 2 < listed);
      while (narrows.length < MAX_NARROWING && left.length > 0) {
        const distance = (g: string) => Math.min(...at(g).flatMap((i) => picked.map((j) => Math.abs(i - j))));
        let best = 0;
        for (let i = 1; i < left.length; i++) if (distance(left[i]!) > distance(left[best]!)) best = i;
        // A bigram overlapping one already picked comes from the same word: it narrows nothing.
        if (distance(left[best]!) < 2) break;
        const [g] = left.splice(best, 1);
        narrows.push(g!);
        picked.push(...at(g!));
      }
    }
    /**
     * From posting g1 of the rarest gram to a confirmed match. The narrowing grams are joins or
     * probes (see joined). The substring test is a join on
     * SQLite, whose nested loops are cheapest, and a subquery per candidate on PostgreSQL, whose
     * planner would otherwise rather read every indexed text than look up the candidates'.
     */
    const alias = (i: number) => sql.id(`g${i + 2}`);
    /**
     * SQLite joins every narrowing gram (nested loops: a probe per candidate). PostgreSQL merges a
     * joined gram's whole posting list with the candidates, and can't tell a gram held by 78
     * projects from one held by 11,000: grams many times commoner than the rarest are probed per
     * candidate instead (a subquery).
     */
    const joined = (i: number) => !pg || holders.get(narrows[i]!)! <= 8 * holders.get(rarest)!;
    const confirmJoins = sql.join(
      [
        ...narrows.flatMap((_, i) => (joined(i) ? [sql`cross join showcase_grams ${alias(i)}`] : [])),
        ...(exact || pg ? [] : [sql`cross join showcase_entries e`]),
      ],
      sql` `,
    );
    /** The tests that a project (id, featured) matches, given it holds the rarest gram. */
    const confirmOf = (id: RawBuilder<unknown>, featured: RawBuilder<unknown>, asSubqueries = false) => {
      const narrowing = (g: string, i: number) =>
        sql`${alias(i)}.gram = ${g} and ${alias(i)}.featured = ${featured} and ${alias(i)}.project_id = ${id}`;
      // With the grams joined, the PostgreSQL subquery names all of them, so it runs on what the
      // grams leave (a join filter), not on every posting of one (a filter pushed into its scan).
      const all = asSubqueries
        ? sql``
        : sql.join(
            narrows.flatMap((_, i) => (joined(i) ? [sql` and ${alias(i)}.project_id = ${id}`] : [])),
            sql``,
          );
      return [
        ...narrows.map((g, i) =>
          asSubqueries || !joined(i)
            ? sql`(select 1 from showcase_grams ${alias(i)} where ${narrowing(g, i)}) is not null`
            : narrowing(g, i),
        ),
        ...(exact
          ? []
          : pg
            ? [
                sql`${contains(sql`(select e.text from showcase_entries e where e.project_id = ${id}${all})`, term)}`,
              ]
            : [sql`e.project_id = ${id} and ${contains(sql`e.text`, term)}`]),
      ];
    };
    const confirm = confirmOf(sql`g1.project_id`, sql`g1.featured`);
    const postings = [sql`g1.gram = ${rarest}`, ...(q.featured ? [sql`g1.featured = 1`] : [])];
    const matchSql = (limit?: number) =>
      sql`with m as materialized (select g1.project_id, g1.featured from showcase_grams g1 ${confirmJoins}
        where ${sql.join([...postings, ...confirm], sql` and `)} ${limit ? sql`limit ${limit}` : sql``})`;
    const fromMatches = sql`m cross join projects p`;
    const matched = sql`p.id = m.project_id and p.featured = m.featured`;
    /** Every match, sorted: cost ~ the rarest gram's holders. Materialised, so PostgreSQL too finds the matches first. */
    const sortAll = () => page(q, sql`${matchSql()} ${pageSql(q, fromMatches, [matched])}`);
    /**
     * The matches counted up to `limit`, and sorted into the page only when fewer: past the limit
     * the page is walked instead, and fetching and sorting what was found would be wasted (the
     * count is an init plan both engines test before they read a project). One row at least:
     * `matches` and, when sorted, the page's cards.
     */
    const countAndSort = async (limit: number) => {
      const rows = await page(
        q,
        sql`${matchSql(limit)} select c.n as matches, p.* from (select count(*) as n from m) c
          left join (${pageSql(q, fromMatches, [matched, sql`(select count(*) from m) < ${limit}`])}) p on 1 = 1`,
      );
      return { n: Number(rows[0]!.matches), rows: rows.filter((r) => r.id != null) };
    };
    /**
     * The listed projects in the page's order, each tested: cost ~ rows needed / share that match.
     * On PostgreSQL every test is a subquery of p, so projects is the only table to plan and the
     * index order is kept (as joins, its estimate of a gram's holders decides, often wrongly).
     */
    const walk = () =>
      page(
        q,
        pg
          ? pageSql(q, sql`projects p`, [
              sql`(select 1 from showcase_grams g1 where g1.gram = ${rarest} and g1.featured = p.featured and g1.project_id = p.id) is not null`,
              ...confirmOf(sql`p.id`, sql`p.featured`, true),
            ])
          : pageSql(q, sql`projects p cross join showcase_grams g1 ${confirmJoins}`, [
              sql`g1.gram = ${rarest} and g1.featured = p.featured and g1.project_id = p.id`,
              ...confirm,
            ]),
      );

    // Matches are counted up to the cap, or one past the page asked for: enough to know whether
    // there is a next page.
    const limit = Math.max(countCap, q.page * q.pageSize + 1);
    let total = exact ? holders.get(rarest)! : undefined;
    let capped = false;
    const key = `${q.featured ? 1 : 0}:${term}`;
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
    // The candidates expected if the grams were independent: when likely under the cap, one pass
    // finds, counts and sorts every match (up to the cap: more means the page must be walked).
    const expected = narrows.reduce((n, g) => (n * holders.get(g)!) / listed, holders.get(rarest)!);
    if (total === undefined && expected * 2 <= limit) {
      const found = await countAndSort(limit);
      if (found.n < limit)
        return { rows: found.rows.map(cardOf), total: remember(found.n, false), capped: false };
      total = remember(found.n, true);
      capped = true;
    }
    if (total === undefined) {
      const r = await sql<{
        n: number;
      }>`select count(*) as n from (select 1 from showcase_grams g1 ${confirmJoins}
        where ${sql.join([...postings, ...confirm], sql` and `)} limit ${limit}) c`.execute(db);
      const n = Number(r.rows[0]!.n);
      capped = n >= limit;
      total = remember(n, capped);
    }
    if (total === 0) return { rows: [], total: 0, capped: false };
    // A capped total is a lower bound of the matches: the walk is then shorter than estimated.
    const walked = (q.page * q.pageSize * listed) / total;
    const rows = !capped && SORT_COST * total <= walked ? await sortAll() : await walk();
    return { rows: rows.map(cardOf), total, capped };
  }

  return {
    /**
     * A page of cards and the number of matches; `capped`: a long term's count stopped at the cap,
     * there are at least `total`.
     */
    async list(q: ShowcaseQuery): Promise<{ rows: ShowcaseRow[]; total: number; capped: boolean }> {
      const term = q.search ? searchForm(q.search).replace(/\s+/g, ' ').trim() : '';
      return term ? search(q, term) : listAll(q);
    },
    /** Applies every queued change to the search index and totals (also done before each answer). */
    refreshIndex: applyQueue,
  };
}
export type ShowcaseRepository = ReturnType<typeof createShowcaseRepository>;

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
    file_count: Number(r.file_count),
    total_size: Number(r.total_size),
    thumbnail_sha256: r.thumbnail_sha256 ?? null,
  };
}

function chunks<T>(list: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}
