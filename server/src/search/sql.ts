/**
 * Every SQL statement of the showcase search, both engines (Umami's pattern): what differs is
 * written once per engine, side by side in `ENGINES`, and chosen in one place (`createSearchSql`);
 * the statements both engines share are built from those parts below. The plan comes from
 * search/plan.ts; services/showcase.ts decides which statement runs.
 *
 * The index (migration 002): showcase_grams (gram, featured, owner_id, project_id; the owner since
 * migration 035) holds each listed project's distinct grams, showcase_gram_counts their holders, showcase_entries each listed
 * project's normalised text, showcase_totals the listed totals and a version that changes with
 * the index, showcase_queue the projects whose listing may have changed (filled by triggers).
 */
import type { ShowcaseSort } from '@sitehall/contracts';
import { type RawBuilder, type SqlBool, sql } from 'kysely';
import type { DB } from '../db/database.js';
import type { Dialect } from '../db/dialect.js';
import { kept, prepared } from '../db/prepared.js';
import type { Flag } from '../db/types.js';
import { BLOOM_BITS, wordsMask } from './bloom.js';
import { type AuthorPlan, gramsOf, type OwnersPlan, type SearchPlan } from './plan.js';

/** A page of the showcase: its sort, filter and place. */
export interface ShowcasePage {
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
  /** The site's name (docs/decisions/names.md), null when it is reached by its number. */
  site_name: string | null;
  file_count: number;
  total_size: number;
  /** The live version's rendered picture (docs/render.md), null until rendered. */
  thumbnail_sha256: string | null;
  /** The live version's entry page: null when its address opens no page (docs/decisions/review.md). */
  entry_file: string | null;
}

/** An entry of the index: a listed project's normalised name and description, and its owner. */
export interface IndexEntry {
  project_id: number;
  featured: Flag;
  text: string;
  owner_id: number;
}

/** Rows of a few columns, each text or an integer, sent as one parameter per column. */
type Row = Array<string | number>;
type ColumnType = 'text' | 'int';

type Sql = RawBuilder<unknown>;

/**
 * A project as a posting's key names it: id, featured flag and owner. Every probe of a gram names
 * all three (migration 035's key), so it is one lookup, never a range of the gram's holders.
 */
interface Held {
  id: Sql;
  featured: Sql;
  owner: Sql;
  /** Its gram bloom (PostgreSQL's rows of projects, migration 038); none for a posting. */
  bloom?: Sql;
}
/** The project of walked row `p`, and of posting `g`. */
const ofProject: Held = { id: sql`p.id`, featured: sql`p.featured`, owner: sql`p.owner_id` };
/** Row `p` of projects on PostgreSQL, with its gram bloom. */
const ofListed: Held = { ...ofProject, bloom: sql`p.gram_bloom` };
/**
 * Whether project `p`'s gram bloom holds every bit of `words`' grams (search/bloom.ts): a test of
 * bits in the row (or order index) already read, made before any probe of its postings; none when
 * `p` has no bloom. A bit set proves nothing: the probes and the text still decide.
 */
const bloomHolds = (p: Held, words: readonly string[]): Sql[] => {
  const mask = p.bloom ? wordsMask(words) : null;
  if (!mask) return [];
  // A parameter, so that a statement's text is its plan's shape, not its words' (db/prepared.ts
  // `kept`); typed varbit, a bit string of any length, so no cast to bit(256) runs per row.
  const bits = sql`${mask}::varbit`;
  return [sql`(${p.bloom} & ${bits}) = ${bits}`];
};
const ofPosting = (g: string): Held => ({
  id: sql`${sql.ref(`${g}.project_id`)}`,
  featured: sql`${sql.ref(`${g}.featured`)}`,
  owner: sql`${sql.ref(`${g}.owner_id`)}`,
});
/** Posting `g` is gram `gram`'s for project `p`. */
const postingOf = (g: Sql, gram: string, p: Held) =>
  sql`${g}.gram = ${gram} and ${g}.featured = ${p.featured} and ${g}.owner_id = ${p.owner} and ${g}.project_id = ${p.id}`;

const alias = (i: number) => sql.id(`g${i + 2}`);
/** A narrowing gram `i` of the plan held by project `p`. */
const narrowing = (plan: SearchPlan, i: number, p: Held) => postingOf(alias(i), plan.narrows[i]!, p);
const probe = (plan: SearchPlan, i: number, p: Held) =>
  sql`(select 1 from showcase_grams ${alias(i)} where ${narrowing(plan, i, p)}) is not null`;
/** The joins of the plan's narrowing grams that are joined (plan.joined). */
const gramJoins = (plan: SearchPlan) =>
  plan.narrows.flatMap((_, i) => (plan.joined[i] ? [sql`cross join showcase_grams ${alias(i)}`] : []));
/**
 * The substring tests of index entry `e`: it holds each of `words`, and each of `either` in its
 * own text or, failing that, its author's name (a lookup by key, only then).
 */
const entryTests = (
  contains: (text: Sql, term: string) => Sql,
  words: readonly string[],
  either: readonly string[],
  e = 'e',
) => {
  const text = sql.ref(`${e}.text`);
  return [
    ...words.map((w) => contains(text, w)),
    ...either.map(
      (w) =>
        sql`(${contains(text, w)} or (select 1 from showcase_authors sa where sa.owner_id = ${sql.ref(`${e}.owner_id`)} and ${contains(sql`sa.text`, w)}) is not null)`,
    ),
  ];
};
/** A plan of one word and nothing else: its own text's test is that word's (the tuned statements). */
const oneWord = (plan: SearchPlan) => plan.words.length === 1 && plan.either.length === 0;

/** What the two engines write differently. */
interface Engine {
  /** Each sort's ORDER BY; name is pinyin order (domain/name-order.ts), bytes compared on both engines. */
  order: Record<ShowcaseSort, Sql>;
  /** A list of text as one parameter. */
  textList(values: string[]): RawBuilder<string>;
  /** Rows of the given column types as one `select`. */
  rowsOf(rows: Row[], types: ColumnType[]): Sql;
  /** Whether `text` holds `term`. */
  contains(text: Sql, term: string): Sql;
  /**
   * The authors `a` a term names, from the rarest gram's holders (`gram`), each looked up by
   * owner; `where`: further tests of the author `sa`.
   */
  namedAuthors(gram: string, where: Sql[]): Sql;
  /** Whether owner `owner` is one of the authors `a`, tested per row (never a join). */
  byAuthors(owner: Sql): Sql;
  /** Joins author `sa`, looked up by key for each owner `o.owner_id` (never a scan of them all). */
  authorOf: Sql;
  /**
   * The page's project `p` (by `k.page_id`), its owner `u` and its live version `d`, each looked up
   * by key for the page's rows.
   */
  cardJoins: Sql;
  /**
   * For each author `a` with a `pick`: their projects' postings `gw` (project_id, featured,
   * owner_id) of that gram, `scope` the featured test; one range of the index an author.
   */
  ownedPostings(scope: Sql): Sql;
  /** For each author of `authors` (a CTE of owner ids): their listed projects `p` (id, featured) in `scope`. */
  ownedProjects(scope: Sql, authors: string): Sql;
  /** Whether the queue's claim skips rows another process has locked. */
  skipLocked: boolean;
  /**
   * Whether each index entry holds its grams as a set under a GIN index (migration 037,
   * PostgreSQL): the candidates holding several grams are then one intersection of the sets.
   */
  gramSets: boolean;
  /**
   * Whether each project's row and order indexes hold its gram bloom (migration 038, PostgreSQL),
   * tested before a walk probes the project's postings.
   */
  gramBlooms: boolean;
  /**
   * The joins from posting g1 of the rarest gram towards a confirmed match: the narrowing grams
   * and, on SQLite, the indexed text.
   */
  confirmJoins(plan: SearchPlan): Sql;
  /**
   * The tests that project `p` matches, given it holds the rarest gram; with `asSubqueries`, none
   * refers to a join.
   */
  confirm(plan: SearchPlan, p: Held, asSubqueries?: boolean): Sql[];
  /**
   * The page walked: the listed projects in the page's order (`projects`, aliased p), each
   * tested; `hashed`: the rarest gram's holders are read once into a hash the walk looks each
   * project up in (plan.ts pageStrategy), rather than probed per project.
   */
  walk(plan: SearchPlan, page: (from: Sql, where: Sql[]) => Sql, hashed: boolean, projects: Sql): Sql;
}

const ENGINES: Record<Dialect, Engine> = {
  sqlite: {
    order: {
      latest: sql`p.approved_at desc, p.id desc`,
      popular: sql`p.view_count desc, p.id desc`,
      name: sql`p.name_sort_key asc, p.name asc, p.id asc`,
    },
    textList: (values) => sql<string>`(select value from json_each(${JSON.stringify(values)}))`,
    // "where true": SQLite needs it to parse an upsert whose rows come from a select.
    rowsOf: (rows, types) =>
      sql`select ${sql.join(types.map((_, i) => sql`value ->> ${sql.lit(i)}`))} from json_each(${JSON.stringify(rows)}) where true`,
    contains: (text, term) => sql`instr(${text}, ${term}) > 0`,
    namedAuthors: (gram, where) =>
      sql`select sa.owner_id, sa.listed, sa.featured from showcase_author_grams ag cross join showcase_authors sa
        where ${sql.join([sql`ag.gram = ${gram}`, sql`sa.owner_id = ag.owner_id`, ...where], sql` and `)}`,
    // `+`: the owner is tested as each row comes (a walk's order index holds it), never looked up
    // by its own index, which SQLite would otherwise pick and then sort every author's project.
    byAuthors: (owner) => sql`+${owner} in (select owner_id from a)`,
    authorOf: sql`cross join showcase_authors sa`,
    cardJoins: sql`cross join projects p cross join users u cross join deployments d
      where p.id = k.page_id and u.id = p.owner_id and d.id = p.live_deployment_id`,
    // Nested loops in the order written: each author's range, then each posting tested.
    ownedPostings: (scope) =>
      sql`a cross join showcase_grams gw where a.pick is not null and gw.gram = a.pick and ${scope} and gw.owner_id = a.owner_id`,
    ownedProjects: (scope, authors) =>
      sql`${sql.id(authors)} a cross join projects p where p.owner_id = a.owner_id and ${scope} and p.live_deployment_id is not null and p.is_public = 1`,
    skipLocked: false,
    gramSets: false,
    gramBlooms: false,
    // Nested loops are cheapest on SQLite: every narrowing gram and the text are joins, probed
    // per candidate. The text of a plan of several words is a subquery: joined, with more tests on
    // it, SQLite estimated it selective enough to build a Bloom filter of every entry first (a
    // scan of all the texts: 80 ms at 100,000 projects, where the page reads 20).
    confirmJoins: (plan) =>
      sql.join(
        [...gramJoins(plan), ...(plan.exact || !oneWord(plan) ? [] : [sql`cross join showcase_entries e`])],
        sql` `,
      ),
    confirm: (plan, p, asSubqueries = false) => {
      const tests = entryTests(ENGINES.sqlite.contains, plan.words, plan.either);
      // As a subquery of the joined grams, the text is read after they are probed: naming g1 alone,
      // SQLite tested it as each posting of g1 came, before the narrowing grams.
      const after = asSubqueries
        ? []
        : plan.narrows.flatMap((_, i) =>
            plan.joined[i] ? [sql`${alias(i)}.project_id = e.project_id`] : [],
          );
      return [
        ...plan.narrows.map((_, i) =>
          asSubqueries || !plan.joined[i] ? probe(plan, i, p) : narrowing(plan, i, p),
        ),
        ...(plan.exact
          ? []
          : asSubqueries || !oneWord(plan)
            ? [
                sql`(select 1 from showcase_entries e where ${sql.join([sql`e.project_id = ${p.id}`, ...after, ...tests], sql` and `)}) is not null`,
              ]
            : [sql.join([sql`e.project_id = ${p.id}`, ...tests], sql` and `)]),
      ];
    },
    walk(plan, page, _hashed, projects) {
      return page(sql`${projects} cross join showcase_grams g1 ${this.confirmJoins(plan)}`, [
        postingOf(sql`g1`, plan.rarest, ofProject),
        ...this.confirm(plan, ofPosting('g1')),
      ]);
    },
  },
  postgres: {
    order: {
      latest: sql`p.approved_at desc, p.id desc`,
      popular: sql`p.view_count desc, p.id desc`,
      name: sql`p.name_sort_key collate "C" asc, p.name collate "C" asc, p.id asc`,
    },
    textList: (values) => sql<string>`(select unnest(${values}::text[]))`,
    rowsOf: (rows, types) =>
      sql`select * from unnest(${sql.join(types.map((type, i) => sql`${rows.map((r) => r[i])}::${sql.raw(type === 'text' ? 'text' : 'int')}[]`))})`,
    contains: (text, term) => sql`strpos(${text}, ${term}) > 0`,
    // Lateral, with a limit that keeps it from being flattened: each holder's author row is
    // looked up by key (the planner would rather hash all of showcase_authors, 20,000 rows at
    // 1,000,000 projects: 1 ms).
    namedAuthors: (gram, where) =>
      sql`select sa.owner_id, sa.listed, sa.featured from showcase_author_grams ag
        cross join lateral (select * from showcase_authors sa where sa.owner_id = ag.owner_id limit 1) sa
        where ${sql.join([sql`ag.gram = ${gram}`, ...where], sql` and `)}`,
    // "is true" keeps the IN from becoming a join, which scanned the authors for every walked
    // row: PostgreSQL hashes them once (a hashed subplan).
    byAuthors: (owner) => sql`(${owner} in (select owner_id from a)) is true`,
    // Lateral, as namedAuthors: one lookup by key per owner.
    authorOf: sql`cross join lateral (select * from showcase_authors sa where sa.owner_id = o.owner_id limit 1) sa`,
    // Lateral, as authorOf: PostgreSQL may otherwise take the page's rows as the inner side of a
    // join with every user (a scan of 2,000 users, each joined to the 12 rows: 4 of a page's 4.3
    // ms at 100,000 projects), when the page's estimate is dear (a walk's rows are guessed).
    cardJoins: sql`cross join projects p
      cross join lateral (select u.username from users u where u.id = p.owner_id limit 1) u
      cross join lateral (select d.file_count, d.total_size, d.thumbnail_sha256, d.entry_file
        from deployments d where d.id = p.live_deployment_id limit 1) d
      where p.id = k.page_id`,
    // Lateral: a range of the index per author (a join of `a` with the postings could be planned
    // as a scan of the gram's holders).
    ownedPostings: (scope) =>
      sql`a cross join lateral (select gw.project_id, gw.featured, gw.owner_id from showcase_grams gw
        where a.pick is not null and gw.gram = a.pick and ${scope} and gw.owner_id = a.owner_id) gw where true`,
    ownedProjects: (scope, authors) =>
      sql`${sql.id(authors)} a cross join lateral (select p.id, p.featured from projects p where p.owner_id = a.owner_id and ${scope}
        and p.live_deployment_id is not null and p.is_public = 1) p where true`,
    // Another process applying the queue at the same time takes other rows.
    skipLocked: true,
    gramSets: true,
    gramBlooms: true,
    // The substring test is a subquery per candidate: PostgreSQL's planner would otherwise rather
    // read every indexed text than look up the candidates'.
    confirmJoins: (plan) => sql.join(gramJoins(plan), sql` `),
    confirm(plan, p, asSubqueries = false) {
      // With the grams joined, the subquery names all of them, so it runs on what the grams leave
      // (a join filter), not on every posting of one (a filter pushed into its scan).
      const all = asSubqueries
        ? sql``
        : sql.join(
            plan.narrows.flatMap((_, i) =>
              plan.joined[i] ? [sql` and ${alias(i)}.project_id = ${p.id}`] : [],
            ),
            sql``,
          );
      // Several words (or one and an author's): every test in one subquery, its text read once.
      const text = oneWord(plan)
        ? sql`${sql<SqlBool>`strpos(${sql`(select e.text from showcase_entries e where e.project_id = ${p.id}${all})`}, ${plan.term}) > 0`}`
        : sql`(select 1 from showcase_entries e where e.project_id = ${p.id}${all} and ${sql.join(
            entryTests(this.contains, plan.words, plan.either),
            sql` and `,
          )}) is not null`;
      return [
        ...plan.narrows.map((_, i) =>
          asSubqueries || !plan.joined[i] ? probe(plan, i, p) : narrowing(plan, i, p),
        ),
        ...(plan.exact ? [] : [text]),
      ];
    },
    // Every test is a subquery of p, so projects is the only table to plan and the index order is
    // kept (as joins, its estimate of a gram's holders decides, often wrongly). Hashed, the rarest
    // gram's test is an uncorrelated IN that "is true" keeps from becoming a join: PostgreSQL reads
    // the holders once into a hashed subplan and the walk stays in the order index.
    walk(plan, page, hashed, projects) {
      const rarest = hashed
        ? sql`((p.id, p.featured) in (select g1.project_id, g1.featured from showcase_grams g1 where g1.gram = ${plan.rarest}${plan.featured ? sql` and g1.featured = 1` : sql``})) is true`
        : sql`(select 1 from showcase_grams g1 where ${postingOf(sql`g1`, plan.rarest, ofListed)}) is not null`;
      // The bloom first: PostgreSQL orders a WHERE's tests by cost, the bits before a subplan.
      return page(projects, [
        ...bloomHolds(ofListed, plan.words),
        rarest,
        ...this.confirm(plan, ofListed, true),
      ]);
    },
  },
};

/** `n` when it is a whole number (as every page bound is, checked by the API), to be written into a statement. */
function wholeNumber(n: number): number {
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`not a page bound: ${n}`);
  return n;
}

const CARD_COLUMNS = sql`p.id, p.name, p.description, p.featured, p.approved_at, p.view_count,
  u.username as owner_username, d.file_count, d.total_size, d.thumbnail_sha256, d.entry_file, p.name_sort_key, p.site_name`;
/**
 * Queue entries applied per transaction (search/index-maintenance.ts; a bulk backlog blocks SQLite
 * for about this many). A showcase answer applies a queue of at most this many first (one
 * transaction); a longer one is a backlog the background job applies (services/showcase.ts).
 */
export const QUEUE_BATCH = 1000;
/** The queue's length, counted up to one past a batch (a longer queue is a backlog). */
const QUEUED = sql`(select count(*) from (select 1 from showcase_queue limit ${sql.lit(QUEUE_BATCH + 1)}) q)`;

/** The search's statements on one database. */
export function createSearchSql(db: DB, dialect: Dialect) {
  const engine = ENGINES[dialect];
  const ORDER = engine.order;
  /** Row `p` of projects, with its gram bloom where the engine keeps one. */
  const listed = engine.gramBlooms ? ofListed : ofProject;

  /**
   * The page's SQL: the ids of matching listed projects `p` in order, then the page's projects,
   * authors and sizes. Only the id goes through the sort: a sort of every match carried each one's
   * name and description before (twice the time for a few thousand matches), and a walk in an
   * order index reads nothing but that index and the grams (migration 027).
   */
  function pageSql(q: ShowcasePage, from: Sql, where: Sql[], literal = false) {
    const conditions = [
      sql`p.live_deployment_id is not null`,
      sql`p.is_public = 1`,
      ...(q.featured ? [sql`p.featured = 1`] : []),
      ...where,
    ];
    return sortedPage(q, sql`${from} where ${sql.join(conditions, sql` and `)}`, literal);
  }

  /**
   * The page of rows `p` that `from` gives, each one a match holding the id and the order's
   * columns (pageSql's tested projects, or a materialized set of matches), then the page's
   * projects, authors and sizes.
   */
  function sortedPage(q: ShowcasePage, from: Sql, literal = false) {
    const offset = (q.page - 1) * q.pageSize;
    // Written into the text for a statement kept prepared (db/prepared.ts), which has none.
    const bound = (n: number) => (literal ? sql.lit(wholeNumber(n)) : sql`${n}`);
    // 12 lookups of projects, authors and sizes, not one per match. cross join fixes SQLite's join
    // order to the one written; PostgreSQL keeps it too (join_collapse_limit=1, db/database.ts),
    // but may still take either side of one join first: its lookups are lateral (cardJoins).
    return sql`select ${CARD_COLUMNS}
      from (select p.id as page_id
        from ${from}
        order by ${ORDER[q.sort]} limit ${bound(q.pageSize)} offset ${bound(offset)}) k
      ${engine.cardJoins}`;
  }

  /** The columns of each sort's order index that its ORDER BY names. */
  const ORDER_COLUMNS: Record<ShowcaseSort, Sql> = {
    latest: sql`p.approved_at`,
    popular: sql`p.view_count`,
    name: sql`p.name_sort_key, p.name`,
  };
  /**
   * The first `rows` listed projects (in scope) in the page's order, as a walk's `projects p`: the
   * columns its order index holds (no project's row is read), so a walk of them stops there.
   */
  const firstListed = (q: ShowcasePage, rows: number, bits: Sql[] = []) =>
    sql`(select p.id, p.featured, p.owner_id, p.live_deployment_id, p.is_public,${engine.gramBlooms ? sql` p.gram_bloom,` : sql``} ${ORDER_COLUMNS[q.sort]}
      from projects p where p.live_deployment_id is not null and p.is_public = 1${q.featured ? sql` and p.featured = 1` : sql``}${sql.join(
        bits.map((b) => sql` and ${b}`),
        sql``,
      )}
      order by ${ORDER[q.sort]} limit ${Math.ceil(rows)}) p`;

  async function page(q: ShowcasePage, query: Sql) {
    const r = await kept(sql<ShowcaseRow & { matches?: number }>`${query} order by ${ORDER[q.sort]}`).execute(
      db,
    );
    return r.rows;
  }

  /** The confirmed postings g1 of the rarest gram (in scope), as a WHERE clause and its joins. */
  const matching = (plan: SearchPlan) => {
    if (engine.gramSets && plan.sets) {
      // The entries holding the rarest gram and every narrowing one, found as one intersection in
      // the GIN index of their gram sets (migration 037; plan.ts decides when), each then tested
      // as a posting's candidate is. Named g1 as the postings are: the same columns.
      const held = sql`g1.grams @> ${[plan.rarest, ...plan.narrows]}::text[]`;
      const tests = entryTests(engine.contains, plan.words, plan.either, 'g1');
      return sql`showcase_entries g1 where ${sql.join(
        [held, ...(plan.featured ? [sql`g1.featured = 1`] : []), ...tests],
        sql` and `,
      )}`;
    }
    const postings = [sql`g1.gram = ${plan.rarest}`, ...(plan.featured ? [sql`g1.featured = 1`] : [])];
    const confirm = engine.confirm(plan, ofPosting('g1'));
    return sql`showcase_grams g1 ${engine.confirmJoins(plan)} where ${sql.join([...postings, ...confirm], sql` and `)}`;
  };
  const matchSql = (plan: SearchPlan, limit?: number) =>
    sql`with m as materialized (select g1.project_id, g1.featured from ${matching(plan)} ${limit ? sql`limit ${limit}` : sql``})`;
  const fromMatches = sql`m cross join projects p`;
  const matched = sql`p.id = m.project_id and p.featured = m.featured`;

  /**
   * `a`: the authors the term names (owner_id, listed, featured), those with a featured project
   * when `featured`; for a 1–2 character term, ids only (listed and featured 0).
   */
  const authorsCte = (ap: AuthorPlan, featured: boolean) =>
    ap.exact
      ? // A 1–2 character term names exactly its gram's holders: their ids alone (their counts
        // come with the gram's, and thousands of them are not each read).
        sql`with a as materialized (select ag.owner_id, 0 as listed, 0 as featured
          from showcase_author_grams ag where ag.gram = ${ap.rarest})`
      : sql`with a as materialized (${engine.namedAuthors(ap.rarest, [
          engine.contains(sql`sa.text`, ap.term),
          ...(featured ? [sql`sa.featured > 0`] : []),
        ])})`;
  /**
   * Whether project `id` holds each of the author plan's further words (plan.ts planWords) in its
   * own text or its author's name; none: no test.
   */
  /**
   * Whether project `p`'s own text holds word `w`: `gram`, the word's rarest gram (exactly the
   * word for 1–2 characters), probed, then for a longer word its text read; `spared`: a test that,
   * when true, spares the probe (the text is still read).
   */
  const ownHolds = (w: string, gram: string, p: Held, spared?: Sql) => {
    const probe = sql`(select 1 from showcase_grams gx where ${postingOf(sql`gx`, gram, p)}) is not null`;
    const text =
      Array.from(w).length > 2
        ? sql` and (select 1 from showcase_entries e where e.project_id = ${p.id} and ${engine.contains(sql`e.text`, w)}) is not null`
        : sql``;
    const held = sql.join([...bloomHolds(p, [w]), spared ? sql`(${spared} or ${probe})` : probe], sql` and `);
    return sql`(${held}${text})`;
  };
  /** The author grams of a search found author by author (plan.ts planOwners), each once. */
  const authorGramsOf = (op: OwnersPlan) => [
    ...new Set(op.authorGrams.filter((g): g is string => g !== null)),
  ];
  const eitherTest = (ap: AuthorPlan, p: Held) =>
    sql.join(
      ap.either.map((w, i) => {
        // The author's name first, by key in a small table; then the word's rarest gram, probed
        // (exactly the word when it has 1–2 characters); the text is read only past both: of
        // the 1,057 projects `react 地图` leads by react, none has its text read.
        const gram = ap.eitherGrams?.[i];
        const own =
          gram === undefined
            ? sql.join(
                [
                  ...bloomHolds(p, [w]),
                  sql`(select 1 from showcase_entries e where e.project_id = ${p.id} and ${engine.contains(sql`e.text`, w)}) is not null`,
                ],
                sql` and `,
              )
            : gram === null
              ? sql`false`
              : ownHolds(w, gram, p);
        return sql` and ((select 1 from showcase_authors sa where sa.owner_id = ${p.owner} and ${engine.contains(sql`sa.text`, w)}) is not null
            or ${own})`;
      }),
      sql``,
    );
  /**
   * The listed projects `p` of the authors `a` (featured only when `featured`) that hold the
   * author plan's further words, as a FROM and WHERE to extend.
   */
  const authorProjects = (featured: boolean, ap: AuthorPlan) =>
    sql`a cross join projects p where p.owner_id = a.owner_id and p.live_deployment_id is not null
      and p.is_public = 1${featured ? sql` and p.featured = 1` : sql``}${eitherTest(ap, listed)}`;
  /** Whether project `p` matches the term by its own text, as subqueries. */
  const textTest = (plan: SearchPlan, p: Held, hashed = false) =>
    sql.join(
      [
        // The bits first, in the order written: an own text lacking one can't hold the words.
        ...bloomHolds(p, plan.words),
        hashed
          ? // PostgreSQL: the rarest gram's holders read once into a hashed subplan (Engine.walk).
            sql`((${p.id}, ${p.featured}) in (select g1.project_id, g1.featured from showcase_grams g1 where g1.gram = ${plan.rarest})) is true`
          : sql`(select 1 from showcase_grams g1 where ${postingOf(sql`g1`, plan.rarest, p)}) is not null`,
        ...engine.confirm(plan, p, true),
      ],
      sql` and `,
    );

  /**
   * `a`: the authors whose names hold some of the words of a search found author by author
   * (plan.ts planOwners), each with whether their name holds word i (`h<i>`) and the gram of the
   * first word it lacks (`pick`; null when it holds them all). An author whose name lacks a word no
   * project's own text holds is left out: none of their projects can match.
   */
  const ownersAuthors = (op: OwnersPlan, featured: boolean) => {
    const has = op.words.map((w) => engine.contains(sql`sa.text`, w));
    const col = (i: number) => sql.id(`h${i}`);
    // Each author's range: the gram of the first word (the rarest) their name lacks; none when
    // it holds them all.
    const whens = op.words.flatMap((_, i) =>
      op.ownGrams[i] === null ? [] : [sql`when not (${has[i]!}) then ${op.ownGrams[i]!}`],
    );
    const pick = whens.length > 0 ? sql`case ${sql.join(whens, sql` `)} end` : sql`cast(null as text)`;
    const authors = sql`with a as materialized (
        select sa.owner_id, ${sql.join(has.map((h, i) => sql`${h} as ${col(i)}`))}, ${pick} as pick
        from (select distinct ag.owner_id from showcase_author_grams ag where ag.gram in (${sql.join(authorGramsOf(op))})) o
        ${engine.authorOf}
        where ${sql.join(
          [
            sql`sa.owner_id = o.owner_id`,
            sql`(${sql.join(has, sql` or `)})`,
            // A word no project's own text holds: the author's name must.
            ...op.words.flatMap((_, i) => (op.ownGrams[i] === null ? [has[i]!] : [])),
            ...(featured ? [sql`sa.featured > 0`] : []),
          ],
          sql` and `,
        )})`;
    return { authors, col };
  };

  return {
    // ---- Answering ----------------------------------------------------------------------------

    /**
     * The unsearched page with the listed totals, in one query (one round trip in steady state);
     * `queued`: how many changes wait in the queue (counted up to QUEUE_BATCH + 1).
     */
    async listAll(q: ShowcasePage) {
      // Kept prepared (db/prepared.ts): its text is one of a few (sort, filter, page), and
      // PostgreSQL planned it afresh each time for 0.3 of its 0.42 ms.
      const r = await prepared(sql<
        Partial<ShowcaseRow> & { all_listed: number; all_featured: number; queued: number }
      >`select t.listed as all_listed, t.featured as all_featured, ${QUEUED} as queued, p.*
        from showcase_totals t left join (${pageSql(q, sql`projects p`, [], true)}) p on 1 = 1
        where t.id = 1 order by ${ORDER[q.sort]}`).execute(db);
      const head = r.rows[0]!;
      return {
        queued: Number(head.queued),
        rows: r.rows.filter((row) => row.id != null),
        listed: Number(head.all_listed),
        featured: Number(head.all_featured),
      };
    },

    /**
     * The listed totals, the index version and the holders of some grams (projects by their name
     * and description, authors by their username), in one query.
     */
    async overview(grams: string[]) {
      const r = await kept(sql<{
        gram: string;
        listed: number;
        featured: number;
        authors: number;
        author_listed: number;
        author_featured: number;
        version: number;
        queued: number;
      }>`
        select '' as gram, listed, featured, 0 as authors, 0 as author_listed, 0 as author_featured, version,
          ${QUEUED} as queued from showcase_totals where id = 1
        union all
        select gram, listed, featured, authors, author_listed, author_featured, 0, 0 from showcase_gram_counts
          -- On PostgreSQL one array, so that the text is one whatever the number of grams (kept).
          where gram ${dialect === 'postgres' ? sql`= any(${grams}::text[])` : sql`in (${sql.join(grams)})`}`).execute(
        db,
      );
      const head = r.rows.find((row) => row.gram === '')!;
      const counts = new Map(
        r.rows
          .filter((row) => row.gram !== '')
          .map((row) => [
            row.gram,
            {
              listed: Number(row.listed),
              featured: Number(row.featured),
              authors: Number(row.authors),
              authorListed: Number(row.author_listed),
              authorFeatured: Number(row.author_featured),
            },
          ]),
      );
      return {
        queued: Number(head.queued),
        listed: Number(head.listed),
        featured: Number(head.featured),
        version: Number(head.version),
        counts,
      };
    },

    /**
     * PostgreSQL's memory for one hash (work_mem × hash_mem_multiplier), in bytes; null on SQLite,
     * which has no such limit.
     */
    async hashMemory(): Promise<number | null> {
      if (dialect !== 'postgres') return null;
      const r = await sql<{ bytes: number }>`select pg_size_bytes(current_setting('work_mem'))
          * coalesce(current_setting('hash_mem_multiplier', true)::float8, 1) as bytes`.execute(db);
      return Number(r.rows[0]!.bytes);
    },

    /** Every match, sorted: cost ~ the rarest gram's holders. Materialised, so PostgreSQL too finds the matches first. */
    sortAll: (plan: SearchPlan, q: ShowcasePage) =>
      page(q, sql`${matchSql(plan)} ${pageSql(q, fromMatches, [matched])}`),

    /**
     * The matches counted up to `limit`, and sorted into the page only when fewer: past the limit
     * the page is walked instead, and fetching and sorting what was found would be wasted (the
     * count is an init plan both engines test before they read a project).
     */
    async countAndSort(plan: SearchPlan, q: ShowcasePage, limit: number) {
      const rows = await page(
        q,
        sql`${matchSql(plan, limit)} select c.n as matches, p.* from (select count(*) as n from m) c
          left join (${pageSql(q, fromMatches, [matched, sql`(select count(*) from m) < ${limit}`])}) p on 1 = 1`,
      );
      return { n: Number(rows[0]!.matches), rows: rows.filter((r) => r.id != null) };
    },

    /** The matches counted, up to `limit`. */
    async count(plan: SearchPlan, limit: number): Promise<number> {
      const r = await kept(sql<{ n: number }>`select count(*) as n from (select 1 from ${matching(plan)}
        limit ${limit}) c`).execute(db);
      return Number(r.rows[0]!.n);
    },

    /**
     * The listed projects in the page's order, each tested: cost ~ rows needed / share that match;
     * `hashed`: see Engine.walk. `within`: only the first that many listed projects are walked (a
     * page of fewer rows than asked may then not be the whole page); with `passing` (PostgreSQL,
     * whose rows hold gram blooms), only the first `within` of those whose bits hold every gram of
     * the words, tested in the order index's own scan: a bound on the projects walked tests the
     * bits above a subquery each walked row passes through (在线工具 at 1,000,000 projects: 17,136
     * rows through it, 0.7–1.0 ms of a 6.1–6.7 ms walk; docs/decisions/serving.md "Showcase listing
     * and search").
     */
    walk: (plan: SearchPlan, q: ShowcasePage, hashed = false, within?: number, passing = false) =>
      page(
        q,
        engine.walk(
          plan,
          (from, where) => pageSql(q, from, where),
          hashed,
          within === undefined
            ? sql`projects p`
            : firstListed(q, within, passing && engine.gramBlooms ? bloomHolds(ofListed, plan.words) : []),
        ),
      ),

    // ---- Searches that find authors too (plan.ts planAuthors) -----------------------------------

    /** The authors the term names, and their listed (featured) projects. */
    async authorSummary(ap: AuthorPlan, featured: boolean) {
      const r = await kept(sql<{ authors: number; projects: number }>`${authorsCte(ap, featured)}
        select count(*) as authors, coalesce(sum(${featured ? sql`a.featured` : sql`a.listed`}), 0) as projects
        from a`).execute(db);
      return { authors: Number(r.rows[0]!.authors), projects: Number(r.rows[0]!.projects) };
    },

    /**
     * The listed (featured) projects of the authors the term names (0 for a 1–2 character term:
     * they come with its gram's counts), the term's text matches counted up to `limit` (0
     * uncounted when the authors' projects reach it), and how many of those the authors own (when
     * fewer than `limit` were found, the projects both sides find), in one query.
     */
    async textSide(plan: SearchPlan, ap: AuthorPlan, limit: number) {
      // A 1–2 character term's holders are all read (limit: one more than there are), whatever
      // the authors' projects.
      const inScope = sql`(select coalesce(sum(${plan.featured ? sql`a.featured` : sql`a.listed`}), 0) from a)`;
      const counted = plan.exact ? sql`1 = 1` : sql`${inScope} < ${limit}`;
      const r = await kept(sql<{ n: number; overlap: number; projects: number }>`${authorsCte(
        ap,
        plan.featured,
      )}, t as materialized (select g1.project_id from ${matching(plan)} limit ${limit})
        select ${inScope} as projects,
          -- Counted only when the authors' projects alone are fewer than the limit (else the
          -- matches are at least those, and the count is capped whatever the text finds), and
          -- the overlap only when the text's matches are all found too.
          case when ${counted} then (select count(*) from t) else 0 end as n,
          case when ${counted} and (select count(*) from t) < ${limit}
            then (select count(*) from t cross join showcase_entries e
              where e.project_id = t.project_id and ${engine.byAuthors(sql`e.owner_id`)}) else 0 end as overlap`).execute(
        db,
      );
      const row = r.rows[0]!;
      return {
        projects: Number(row.projects),
        n: Number(row.n),
        overlap: Number(row.overlap),
      };
    },

    /** How many of the authors' listed projects the term's text matches too (each one tested). */
    async authorsOverlap(plan: SearchPlan, ap: AuthorPlan): Promise<number> {
      const r = await kept(sql<{ n: number }>`${authorsCte(ap, plan.featured)}
        select count(*) as n from ${authorProjects(plan.featured, ap)} and ${textTest(plan, listed)}`).execute(
        db,
      );
      return Number(r.rows[0]!.n);
    },

    /**
     * Every match sorted: the text's (when `plan`) and the authors' projects, each once. The
     * authors' projects alone are sorted as they are read: their rows hold the order's columns,
     * where a set of matches is looked up again by id (`zhang_react` at 1,000,000 projects: 686
     * lookups, half the statement; docs/benchmarks.md "Authors' projects sorted as read").
     */
    sortMixed: (plan: SearchPlan | null, ap: AuthorPlan, q: ShowcasePage) =>
      page(
        q,
        plan
          ? sql`${authorsCte(ap, q.featured)}, m as materialized (
          select g1.project_id, g1.featured from ${matching(plan)} union
          select p.id as project_id, p.featured from ${authorProjects(q.featured, ap)})
        ${pageSql(q, fromMatches, [matched])}`
          : sql`${authorsCte(ap, q.featured)}, m as materialized (
          select p.id, ${ORDER_COLUMNS[q.sort]} from ${authorProjects(q.featured, ap)})
        ${sortedPage(q, sql`m p`)}`,
      ),

    /**
     * The matches of a term of several words led by one that may name authors (plan.ts
     * planWords): the leading word's own-text matches (when `plan`) and its authors' projects,
     * each holding the other words, counted once, up to `limit`. The authors' projects the text
     * finds too are left out of their side, so the two sides are counted as they come and the
     * count stops at the limit (a union read every candidate of both first: 188 ms for `zhang
     * react`'s 500+ at 1,000,000 projects).
     */
    async countEither(plan: SearchPlan | null, ap: AuthorPlan, featured: boolean, limit: number) {
      // The authors' side first: its projects are tested by probes (eitherTest), the text's
      // candidates each have their text read.
      const r = await kept(sql<{ n: number }>`${authorsCte(ap, featured)}
        select count(*) as n from (
          select p.id as project_id from ${authorProjects(featured, ap)}${
            plan ? sql` and not (${textTest(plan, listed)})` : sql``
          }
          ${plan ? sql`union all select g1.project_id from ${matching(plan)}` : sql``}
          limit ${limit}) c`).execute(db);
      return Number(r.rows[0]!.n);
    },

    /**
     * The listed projects walked in the page's order, each tested against the text and the
     * authors; `hashedText` (PostgreSQL, a search of several words): the text's rarest gram is
     * tested in a hash of its holders rather than probed per walked project.
     */
    walkMixed: (
      plan: SearchPlan | null,
      ap: AuthorPlan,
      q: ShowcasePage,
      probed = false,
      hashedText = false,
    ) => {
      // Probed (a 1–2 character term): each walked project's owner looked up among the gram's
      // holders, with no list of authors made first.
      const byAuthor = sql`${
        probed && ap.exact
          ? sql`(select 1 from showcase_author_grams ag where ag.gram = ${ap.rarest} and ag.owner_id = p.owner_id) is not null`
          : engine.byAuthors(sql`p.owner_id`)
      }${eitherTest(ap, listed)}`;
      const walk = pageSql(q, sql`projects p`, [
        // The owner first: a lookup, where the text's test is a probe or more.
        plan ? sql`(${byAuthor} or ${textTest(plan, listed, hashedText)})` : byAuthor,
      ]);
      return page(q, probed && ap.exact ? walk : sql`${authorsCte(ap, q.featured)} ${walk}`);
    },

    /**
     * A search of several words found author by author (plan.ts planOwners): its matches counted
     * up to `limit`, and sorted into the page when fewer (and `sort`), in one query (as
     * countAndSort).
     */
    async countAndSortByOwners(op: OwnersPlan, q: ShowcasePage, limit: number, sort = true) {
      const { authors, col } = ownersAuthors(op, q.featured);
      // Each word the author's name lacks, in the posting's project's own text. The author's range
      // is of the gram picked: a posting of it holds it, unprobed.
      const tests = op.words.flatMap((w, i) => {
        const gram = op.ownGrams[i];
        if (gram == null) return [];
        return [sql`(a.${col(i)} or ${ownHolds(w, gram, ofPosting('gw'), sql`a.pick = ${gram}`)})`];
      });
      const gwScope = q.featured ? sql`gw.featured = 1` : sql`gw.featured in (0, 1)`;
      const pScope = q.featured ? sql`p.featured = 1` : sql`1 = 1`;
      // The authors whose names hold every word first (`b`): each of their projects is a match,
      // read by owner with no test, so a count that reaches the limit among them reads nothing
      // else (`zhang react` at 1,000,000 projects: the zhang_react authors' 500+). They are found
      // among the holders of every word's author gram, an intersection of the author index, and
      // only those names are read: `a` (every author whose name may hold a word, each name read:
      // 1,119 for `zhang react`) is made only when the count goes on past them.
      const grams = authorGramsOf(op);
      const allNamed = op.authorGrams.every((g) => g !== null);
      const named = allNamed
        ? sql`, b as materialized (select sa.owner_id
            from (${sql.join(
              grams.map((g) => sql`select ag.owner_id from showcase_author_grams ag where ag.gram = ${g}`),
              sql` intersect `,
            )}) o
            ${engine.authorOf}
            where ${sql.join(
              [
                sql`sa.owner_id = o.owner_id`,
                ...op.words.map((w) => engine.contains(sql`sa.text`, w)),
                ...(q.featured ? [sql`sa.featured > 0`] : []),
              ],
              sql` and `,
            )})`
        : sql``;
      const branches = [
        ...(allNamed
          ? [sql`select p.id as project_id, p.featured from ${engine.ownedProjects(pScope, 'b')}`]
          : []),
        sql`select gw.project_id, gw.featured from ${engine.ownedPostings(gwScope)}${sql.join(
          tests.map((t) => sql` and ${t}`),
          sql``,
        )}`,
        ...(op.own
          ? [
              sql`select g1.project_id, g1.featured from ${matching(op.own)} and not (${engine.byAuthors(sql`g1.owner_id`)})`,
            ]
          : []),
      ];
      const rows = await page(
        q,
        sql`${authors}${named}, m as materialized (${sql.join(branches, sql` union all `)} limit ${limit})
          select c.n as matches, p.* from (select count(*) as n from m) c
          left join (${pageSql(q, fromMatches, [matched, sort ? sql`(select count(*) from m) < ${limit}` : sql`false`])}) p on 1 = 1`,
      );
      return { n: Number(rows[0]!.matches), rows: rows.filter((r) => r.id != null) };
    },

    /**
     * The listed projects walked in the page's order, each tested as a search found author by
     * author counts it (plan.ts planOwners): its owner among the authors whose names may hold a
     * word (`a`: the holders of the words' author grams, a hashed test) with every word in its
     * author's name or its own text (one lookup of the author), or its own text holding every word
     * (`op.own`; `hashedOwn`: that plan's rarest gram tested in a hash of its holders, PostgreSQL).
     * The authors' names are read only for the walked projects they own, not for every author the
     * grams name (`zhang react` at 1,000,000 projects: 1,820 authors, 3.6 ms on PostgreSQL), and a
     * project no such author owns costs no probe when a word is in no project's own text; a walk
     * led by one word (walkMixed) probes that word's gram for every walked project. `within`: only
     * the first that many listed projects are walked (a page of fewer rows than asked may then
     * not be the whole page).
     */
    walkByOwners(op: OwnersPlan, q: ShowcasePage, hashedOwn = false, within?: number) {
      const authors = sql`with a as materialized (select distinct ag.owner_id from showcase_author_grams ag
        where ag.gram in (${sql.join(authorGramsOf(op))}))`;
      // Each word in the author's name or, failing that, in the project's own text; a word no own
      // text holds, in the name alone.
      const words = op.words.map((w, i) => {
        const name = engine.contains(sql`sa.text`, w);
        const gram = op.ownGrams[i];
        return gram == null ? name : sql`(${name} or ${ownHolds(w, gram, listed)})`;
      });
      const byAuthor = sql`${engine.byAuthors(sql`p.owner_id`)} and (select 1 from showcase_authors sa
        where ${sql.join([sql`sa.owner_id = p.owner_id`, ...words], sql` and `)}) is not null`;
      const test = op.own ? sql`((${byAuthor}) or ${textTest(op.own, listed, hashedOwn)})` : byAuthor;
      const from = within === undefined ? sql`projects p` : firstListed(q, within);
      return page(q, sql`${authors} ${pageSql(q, from, [test])}`);
    },

    // ---- Keeping the index --------------------------------------------------------------------

    /** Up to `n` queued project ids, oldest id first (on PostgreSQL locked, skipping locked ones). */
    async claimQueued(trx: DB, n: number): Promise<number[]> {
      let claim = trx.selectFrom('showcase_queue').select('project_id').orderBy('project_id').limit(n);
      if (engine.skipLocked) claim = claim.forUpdate().skipLocked();
      return (await claim.execute()).map((r) => r.project_id);
    },

    /**
     * Of these claimed projects, those this transaction may index now: on PostgreSQL, where
     * indexing writes the project's row (its gram bloom), each row locked first (FOR NO KEY UPDATE,
     * skipping one another transaction holds), or gone. A row another transaction holds (a change
     * to the project, a decision on it) is left for a later batch, still queued: the index never
     * waits for a request, so a request waiting for the queue's rows (its trigger's insert) can't
     * wait for it in turn. SQLite has one writer: every id.
     */
    async lockForIndex(trx: DB, ids: number[]): Promise<number[]> {
      if (!engine.gramBlooms || ids.length === 0) return ids;
      const locked = await sql<{ id: number }>`select id from projects where id = any(${ids}::int[])
        for no key update skip locked`.execute(trx);
      const existing = await sql<{
        id: number;
      }>`select id from projects where id = any(${ids}::int[])`.execute(trx);
      const mine = new Set(locked.rows.map((r) => Number(r.id)));
      const held = new Set(existing.rows.map((r) => Number(r.id)).filter((id) => !mine.has(id)));
      return ids.filter((id) => !held.has(id));
    },

    /**
     * PostgreSQL: rows [project id, bloom] (search/bloom.ts bloomOf of the entry's grams), each
     * project's row locked by lockForIndex; nothing on SQLite.
     */
    async setBlooms(trx: DB, rows: Array<[number, string]>): Promise<void> {
      if (!engine.gramBlooms || rows.length === 0) return;
      await sql`update projects p set gram_bloom = v.bloom::bit(${sql.lit(BLOOM_BITS)})
        from (${engine.rowsOf(rows, ['int', 'text'])}) v(id, bloom)
        where p.id = v.id and p.gram_bloom <> v.bloom::bit(${sql.lit(BLOOM_BITS)})`.execute(trx);
    },

    /** What decides these projects' listing now. */
    projectsOf(trx: DB, ids: number[]) {
      return trx
        .selectFrom('projects')
        .select(['id', 'owner_id', 'search_text', 'live_deployment_id', 'is_public', 'featured'])
        .where('id', 'in', ids)
        .execute();
    },

    /** These projects' index entries (what is listed of them now). */
    entriesOf(trx: DB, ids: number[]): Promise<IndexEntry[]> {
      return trx
        .selectFrom('showcase_entries')
        .select(['project_id', 'featured', 'text', 'owner_id'])
        .where('project_id', 'in', ids)
        .execute();
    },

    async deleteGrams(
      trx: DB,
      projectId: number,
      featured: Flag,
      owner: number,
      grams: string[],
    ): Promise<void> {
      await trx
        .deleteFrom('showcase_grams')
        .where('featured', '=', featured)
        .where('owner_id', '=', owner)
        .where('project_id', '=', projectId)
        .where(sql<SqlBool>`gram in ${engine.textList(grams)}`)
        .execute();
    },

    async deleteEntries(trx: DB, ids: number[]): Promise<void> {
      await trx.deleteFrom('showcase_entries').where('project_id', 'in', ids).execute();
    },

    /** Rows [gram, featured, owner, project id], sent as arrays: a few parameters whatever the count. */
    async insertGrams(trx: DB, rows: Array<[string, Flag, number, number]>): Promise<void> {
      await sql`insert into showcase_grams (gram, featured, owner_id, project_id) ${engine.rowsOf(rows, ['text', 'int', 'int', 'int'])}`.execute(
        trx,
      );
    },

    /**
     * Rows [owner, username, listed, featured] added to the authors (a new author's row made with
     * the username), returning each one's counts now; those left with none listed go.
     */
    async addAuthors(
      trx: DB,
      rows: Array<[number, string, number, number]>,
    ): Promise<Array<{ owner_id: number; text: string; listed: number }>> {
      const r = await sql<{ owner_id: number; text: string; listed: number }>`insert into showcase_authors
          (owner_id, text, listed, featured) ${engine.rowsOf(rows, ['int', 'text', 'int', 'int'])}
          on conflict (owner_id) do update set listed = showcase_authors.listed + excluded.listed,
            featured = showcase_authors.featured + excluded.featured
          returning owner_id, text, listed`.execute(trx);
      await sql`delete from showcase_authors where listed <= 0
        and owner_id in (${sql.join(rows.map((row) => row[0]))})`.execute(trx);
      return r.rows.map((row) => ({
        owner_id: Number(row.owner_id),
        text: row.text,
        listed: Number(row.listed),
      }));
    },

    /** Rows [gram, owner] of authors' usernames. */
    async insertAuthorGrams(trx: DB, rows: Array<[string, number]>): Promise<void> {
      if (rows.length === 0) return;
      await sql`insert into showcase_author_grams (gram, owner_id) ${engine.rowsOf(rows, ['text', 'int'])}`.execute(
        trx,
      );
    },

    async deleteAuthorGrams(trx: DB, owner: number, grams: string[]): Promise<void> {
      await trx
        .deleteFrom('showcase_author_grams')
        .where('owner_id', '=', owner)
        .where(sql<SqlBool>`gram in ${engine.textList(grams)}`)
        .execute();
    },

    async insertEntries(trx: DB, entries: IndexEntry[]): Promise<void> {
      // On PostgreSQL with its grams: the same set as its postings (index-maintenance.ts).
      const rows = engine.gramSets ? entries.map((e) => ({ ...e, grams: [...gramsOf(e.text)] })) : entries;
      await trx.insertInto('showcase_entries').values(rows).execute();
    },

    /** Adds [gram, listed, featured, authors, author listed, author featured] to the gram counts. */
    async addGramCounts(
      trx: DB,
      rows: Array<[string, number, number, number, number, number]>,
    ): Promise<void> {
      await sql`insert into showcase_gram_counts (gram, listed, featured, authors, author_listed, author_featured)
          ${engine.rowsOf(rows, ['text', 'int', 'int', 'int', 'int', 'int'])}
          on conflict (gram) do update set listed = showcase_gram_counts.listed + excluded.listed,
            featured = showcase_gram_counts.featured + excluded.featured,
            authors = showcase_gram_counts.authors + excluded.authors,
            author_listed = showcase_gram_counts.author_listed + excluded.author_listed,
            author_featured = showcase_gram_counts.author_featured + excluded.author_featured`.execute(trx);
    },

    /** Adds to the listed totals and moves the index version on. */
    async addTotals(trx: DB, listed: number, featured: number): Promise<void> {
      await trx
        .updateTable('showcase_totals')
        .set({
          listed: sql`listed + ${listed}`,
          featured: sql`featured + ${featured}`,
          version: sql`version + 1`,
        })
        .where('id', '=', 1)
        .execute();
    },

    async dropQueued(trx: DB, ids: number[]): Promise<void> {
      await trx.deleteFrom('showcase_queue').where('project_id', 'in', ids).execute();
    },
  };
}
export type SearchSql = ReturnType<typeof createSearchSql>;
