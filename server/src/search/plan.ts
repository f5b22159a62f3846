/**
 * The showcase search's query planner: pure (no database), so every choice it makes is unit-tested
 * (plan.spec.ts). It normalises the term, picks the grams that find and narrow the candidates,
 * and decides how a page is fetched; search/sql.ts turns the plan into each engine's SQL.
 *
 * Why grams (docs/decisions.md): each listed project's normalised text is cut into its distinct 1-
 * and 2-character grams. A 1- or 2-character term is one gram, answered exactly by the index; a
 * longer term's candidates are the holders of its rarest bigram (and of up to three more from
 * other parts of the term), confirmed by a substring test of the indexed text; their count stops
 * at a cap ("500+"). A term of several words (separated by spaces) finds the projects that hold
 * every word: its candidates come from the rarest gram among all its words (planWords).
 */
import type { Dialect } from '../db/dialect.js';

/**
 * A 3+ character term's matches are counted up to this many (or one past the page asked for):
 * each needs its text tested, and a term with more matches shows "500+" (docs/decisions.md).
 */
export const COUNT_CAP = 500;
/**
 * A narrowing gram held by at most this many times the rarest gram's holders is taken to come with
 * it (one word), not to narrow the candidates (planSearch's `expected`).
 */
export const SAME_WORD = 1.1;
/** Besides the rarest, at most this many of a longer term's grams narrow the candidates. */
export const MAX_NARROWING = 3;
/**
 * Sorting a match costs about this many times testing one project on the walk (measured at
 * 1,000,000 projects on SQLite: 0.27 µs a walked project, 0.87 µs a sorted match; docs/benchmarks.md).
 */
export const SORT_COST = 3;
/**
 * What a page costs on PostgreSQL, in µs (measured at 1,000,000 projects, warm; docs/benchmarks.md
 * "Showcase"): an index probe per walked project is dear there (1.8 µs against SQLite's 0.27), so
 * a walk may instead read the rarest gram's holders once into a hash (0.5 µs a holder) and look
 * each walked project up in it (0.15 µs); a sorted match costs 3.9 µs (its project read by id,
 * then the sort), and a candidate's text test 7 µs.
 */
export const PG_COST = {
  probe: 1.8,
  hashHolder: 0.5,
  hashedRow: 0.15,
  sorted: 3.9,
  confirm: 7,
  /**
   * A posting in the GIN index of the entries' gram sets (migration 037), intersected there:
   * ≈0.04 µs at 100,000 projects (`react 地图`'s 13,585 postings and 378 candidates in 0.6 ms).
   */
  setPosting: 0.05,
} as const;
/**
 * The most holders a walk hashes (a hash of 20,000 is about a walk of 60,000 projects' probes)...
 */
export const PG_HASH_MAX_HOLDERS = 20_000;
/**
 * ...and only as many as fit PostgreSQL's hash memory (work_mem × hash_mem_multiplier, 8 MB by
 * default) at this many bytes a holder, several times what PostgreSQL itself estimates (32): a
 * subplan PostgreSQL expects not to fit is planned as a scan of the holders for every walked
 * project instead (1.6 s for a gram held by 326,000), so a server with a small work_mem hashes
 * fewer.
 */
export const PG_HASH_BYTES_PER_HOLDER = 200;

/**
 * Whether a walk of `walked` projects on PostgreSQL tests the rarest gram (its `holders` of
 * `listed`) in a hash of its holders rather than probing it for each walked project that may
 * hold it: a project whose gram bloom lacks a bit of the words is never probed (search/bloom.ts),
 * so only the holders' share of the walk is, and `falsePass` of the rest (bloomFalsePass; 1 when
 * the bits are not tested: every walked project probed).
 */
export function hashOverProbes(holders: number, listed: number, walked: number, falsePass = 1): boolean {
  const pass = Math.min(1, holders / Math.max(listed, 1) + falsePass);
  return holders * PG_COST.hashHolder < walked * pass * (PG_COST.probe - PG_COST.hashedRow);
}

/** The most holders a walk may hash with `hashMemory` bytes of PostgreSQL's hash memory. */
export function hashableHolders(hashMemory: number): number {
  return Math.min(PG_HASH_MAX_HOLDERS, Math.floor(hashMemory / PG_HASH_BYTES_PER_HOLDER));
}

/** What search compares: NFKC (full-width letters and digits fold to ASCII), lower-case. */
export function searchForm(text: string): string {
  return text.normalize('NFKC').toLowerCase();
}

/** The term as searched: normalised, runs of white space as one space, trimmed; '' for none. */
export function normaliseTerm(search: string | undefined): string {
  return search ? searchForm(search).replace(/\s+/g, ' ').trim() : '';
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

/**
 * A project's normalised search text split into what its own grams index (name and description,
 * the lines before the last) and its author (the last line, indexed once per author: migration
 * 028, docs/decisions/serving.md "Authors apart").
 */
export function splitSearchText(text: string): { own: string; author: string } {
  const cut = text.lastIndexOf('\n');
  return cut < 0 ? { own: text, author: '' } : { own: text.slice(0, cut), author: text.slice(cut + 1) };
}

/**
 * The most words a search may have (400 past it): each word is a test of every candidate, and a
 * term of 100 characters could be 50 one-letter words each an author's name may hold
 * (docs/security.md).
 */
export const MAX_WORDS = 8;

/**
 * The words of a normalised term (normaliseTerm: single spaces, trimmed), each once, leaving out
 * a word another one holds: wherever that one is found, so is it (`博 博客` is `博客`).
 */
export function searchWords(term: string): string[] {
  const words = [...new Set(term.split(' ').filter(Boolean))];
  return words.filter((w) => !words.some((other) => other !== w && other.includes(w)));
}

/** The grams every match of a normalised term holds: the term itself up to 2 characters, else its bigrams. */
export function termGrams(term: string): string[] {
  const chars = Array.from(term);
  if (chars.length <= 2) return [term];
  const grams = new Set<string>();
  for (let i = 0; i + 1 < chars.length; i++) grams.add(chars[i]! + chars[i + 1]!);
  return [...grams];
}

/** A search's plan: the grams that find the candidates and how each is tested. */
export interface SearchPlan {
  /** The words its own text must hold, joined by a space (one word: the term). */
  term: string;
  /** Each of `term`'s words: every match's own text (name, description, site name) holds them all. */
  words: string[];
  /**
   * Further words each match holds in its own text or its author's name (a term of several
   * words, some of which may be an author's: planWords); each is a substring test, no gram.
   */
  either: string[];
  /** The engine the plan is for: their costs differ (SORT_COST, PG_COST). */
  dialect: Dialect;
  featured: boolean;
  /** A one-word term of 1–2 characters: its gram's holders are exactly the matches, no text test. */
  exact: boolean;
  /** Listed projects in scope (featured ones only when the filter is on). */
  listed: number;
  /** The gram with the fewest holders: its postings are the candidates. */
  rarest: string;
  rarestHolders: number;
  /** Further grams each candidate must hold, in the order picked. */
  narrows: string[];
  /** Per narrowing gram: joined (true) or probed by a subquery per candidate (false; PostgreSQL). */
  joined: boolean[];
  /**
   * PostgreSQL: the candidates are the intersection of the entries' gram sets (every posting of
   * the grams read in the GIN index), not the rarest gram's postings joined or probed.
   */
  sets: boolean;
  /** Candidates expected if the grams were independent. */
  expected: number;
}

/**
 * The plan for a normalised, non-empty term (one word, or words its own text must all hold,
 * separated by single spaces), given the listed total in scope and each of its words' grams'
 * holders in scope (termGrams of each word); null when a gram has no holder (nothing matches).
 * `either`: words a match may hold in its author's name instead (tested, not looked up).
 */
export function planSearch(
  term: string,
  opts: {
    featured: boolean;
    listed: number;
    holders: ReadonlyMap<string, number>;
    dialect: Dialect;
    either?: readonly string[];
  },
): SearchPlan | null {
  const chars = Array.from(term);
  const words = term.split(' ');
  const either = [...(opts.either ?? [])];
  const exact = words.length === 1 && chars.length <= 2 && either.length === 0;
  const grams = [...new Set(words.flatMap(termGrams))];
  const holders = (g: string) => opts.holders.get(g) ?? 0;
  if (grams.some((g) => !holders(g))) return null;
  const byRarity = [...grams].sort((a, b) => holders(a) - holders(b));
  const rarest = byRarity[0]!;
  // More grams narrow the candidates before the substring test, which costs far more than an
  // index probe (each candidate's text is read): those held by fewer than half the projects,
  // picked one by one from the part of the term farthest from the grams already picked (nearby
  // bigrams come from the same words and rarely narrow further; another word's are at least a
  // space away), the rarer on a tie, none that overlaps one picked.
  const narrows: string[] = [];
  if (chars.length > 2) {
    // Where each gram is in the term, found once: a plan is made for every search (several for a
    // term of several words), and looking each gram up afresh cost a term of 11 characters ≈60 KB
    // of garbage, which shortened the time between the server's scavenges (docs/benchmarks.md
    // "Showcase").
    const positions = new Map<string, number[]>();
    const found = (gram: string, i: number) => {
      const list = positions.get(gram);
      if (list) list.push(i);
      else positions.set(gram, [i]);
    };
    for (let i = 0; i < chars.length; i++) {
      const next = chars[i + 1];
      found(next === undefined ? chars[i]! : chars[i]! + next, i);
      if (next === ' ') found(chars[i]!, i);
    }
    const none: readonly number[] = [];
    const at = (gram: string): readonly number[] => positions.get(gram) ?? none;
    // A run of ASCII letters and digits is a word (`react`): its bigrams come together (ac's holders
    // nearly all hold re), so one of them narrows and the others only cost probes. Characters of
    // other scripts are their own runs (博客 and 个人 are words apart).
    const runs = runsOf(chars);
    const picked = [...at(rarest)];
    const pickedRuns = new Set<number>();
    // The runs a gram at position i is part of: its first character's and its second's (-1: none).
    const runOf = (i: number) => runs[i] ?? -1;
    const inPickedRun = (i: number) => pickedRuns.has(runOf(i)) || pickedRuns.has(runOf(i + 1));
    const pickRuns = (i: number) => {
      if (runOf(i) >= 0) pickedRuns.add(runOf(i));
      if (runOf(i + 1) >= 0) pickedRuns.add(runOf(i + 1));
    };
    for (const i of picked) pickRuns(i);
    const left = byRarity.slice(1).filter((g) => holders(g) * 2 < opts.listed);
    const dropInPickedRuns = () => {
      for (let i = left.length - 1; i >= 0; i--) if (at(left[i]!).some(inPickedRun)) left.splice(i, 1);
    };
    dropInPickedRuns();
    // How far gram g is from the nearest gram picked (Infinity when it is nowhere).
    const distance = (g: string) => {
      let min = Number.POSITIVE_INFINITY;
      for (const i of at(g)) for (const j of picked) min = Math.min(min, Math.abs(i - j));
      return min;
    };
    while (narrows.length < MAX_NARROWING && left.length > 0) {
      let best = 0;
      let bestDistance = distance(left[0]!);
      for (let i = 1; i < left.length; i++) {
        const d = distance(left[i]!);
        if (d > bestDistance) {
          best = i;
          bestDistance = d;
        }
      }
      // A bigram overlapping one already picked comes from the same word: it narrows nothing.
      if (bestDistance < 2) break;
      const [g] = left.splice(best, 1);
      narrows.push(g!);
      for (const j of at(g!)) {
        picked.push(j);
        pickRuns(j);
      }
      dropInPickedRuns();
    }
  }
  const rarestHolders = holders(rarest);
  // Grams are taken as independent, but for one held by about as many projects as the rarest:
  // such a pair nearly always comes from one word (`snake`'s sn and ke, 35,080 and 35,090 holders
  // at 1,000,000 projects, every holder of one holding the other) and narrows nothing.
  const expected = narrows.reduce(
    (n, g) => (holders(g) <= rarestHolders * SAME_WORD ? n : (n * holders(g)) / opts.listed),
    rarestHolders,
  );
  // SQLite joins every narrowing gram (nested loops: a probe per candidate). PostgreSQL hashes a
  // joined gram's whole posting list before the first row comes out, so a gram is joined only
  // when hashing its holders costs less than probing it for every candidate a count up to the cap
  // reads: all the rarest gram's postings when the grams leave fewer matches than the cap, else
  // the share of them that holds the cap. (Not narrowed further by the other grams: bigrams of
  // one word come together far more often than their counts predict, `zhang_react`'s ct and ea
  // probed after zh took 160 ms where joined they take 50.)
  const reading = Math.min(rarestHolders, (COUNT_CAP * rarestHolders) / Math.max(expected, 1));
  const joined = narrows.map(
    (g) => opts.dialect !== 'postgres' || holders(g) * PG_COST.hashHolder < reading * PG_COST.probe,
  );
  // The gram sets read every posting of every gram, a few hundredths of a µs each; the postings
  // are read only as far as the count needs. So the sets answer when the count reads the grams'
  // postings whole or nearly (`react 地图` at 100,000 projects: 353 matches expected, 2.5 → 0.9 ms),
  // the postings when it stops early (`网站 工具` at 1,000,000, 500+ of 118,000 and 191,000
  // holders: 9 ms probed, 15 from the sets).
  const setsCost = narrows.reduce((n, g) => n + holders(g), rarestHolders) * PG_COST.setPosting;
  const postingsCost = narrows.reduce(
    (n, g, i) => n + (joined[i] ? holders(g) * PG_COST.hashHolder : reading * PG_COST.probe),
    0,
  );
  const sets = opts.dialect === 'postgres' && narrows.length > 0 && setsCost < postingsCost;
  return {
    term,
    words,
    either,
    dialect: opts.dialect,
    featured: opts.featured,
    exact,
    listed: opts.listed,
    rarest,
    rarestHolders,
    narrows,
    joined,
    sets,
    expected,
  };
}

/**
 * Per character of a term: the index where its run of ASCII letters and digits starts, or -1 for
 * any other character.
 */
function runsOf(chars: readonly string[]): number[] {
  const word = /^[a-z0-9]$/;
  return chars.map((c, i) => {
    if (!word.test(c)) return -1;
    let start = i;
    while (start > 0 && word.test(chars[start - 1]!)) start--;
    return start;
  });
}

/** Matches are counted up to the cap, or one past the page asked for: enough to know whether there is a next page. */
export function countLimit(page: number, pageSize: number, countCap = COUNT_CAP): number {
  return Math.max(countCap, page * pageSize + 1);
}

/**
 * When the matches are likely under the limit, one pass finds, counts and sorts them all (up to
 * the limit: more means the page must be walked).
 */
export function countAndSortFirst(plan: SearchPlan, limit: number): boolean {
  return plan.expected * 2 <= limit;
}

/**
 * How the page of a search with `total` matches (`capped`: at least that many) is fetched: every
 * match sorted (cost ~ matches), or the listed projects walked in the page's order, each tested
 * (cost ~ rows needed / share that match); on PostgreSQL the walk may test the rarest gram in a
 * hash of its holders (search/sql.ts), when that is the cheapest of the three (PG_COST).
 */
export function pageStrategy(
  plan: SearchPlan,
  q: { page: number; pageSize: number },
  total: number,
  capped: boolean,
  /** The most holders a walk may hash (hashableHolders of the server's settings). */
  maxHashed = PG_HASH_MAX_HOLDERS,
  /** The share of walked projects without the words whose gram bloom passes (hashOverProbes). */
  falsePass = 1,
): 'sort' | 'walk' | 'hashed walk' {
  // A capped total is a lower bound of the matches: the walk is then shorter than estimated, and
  // the sort has at most the rarest gram's holders to sort (every match holds it).
  const walked = (q.page * q.pageSize * plan.listed) / total;
  const sorted = capped ? plan.rarestHolders : total;
  if (plan.dialect !== 'postgres') return SORT_COST * sorted <= walked ? 'sort' : 'walk';
  // Walked projects that hold the rarest gram have their other grams and text tested too, as
  // every candidate of a sort has (a term of 1–2 characters has no further test).
  const confirm = plan.exact ? 0 : PG_COST.confirm;
  const tested = (walked * plan.rarestHolders) / plan.listed;
  const costs: Array<['sort' | 'walk' | 'hashed walk', number]> = [
    ['sort', sorted * PG_COST.sorted + plan.rarestHolders * confirm],
    ['walk', walked * PG_COST.probe + tested * confirm],
  ];
  if (plan.rarestHolders <= maxHashed) {
    costs.push([
      'hashed walk',
      plan.rarestHolders * PG_COST.hashHolder + walked * PG_COST.hashedRow + tested * confirm,
    ]);
  }
  // Sorted or walked as every walked project were probed; walked, probed or hashed as the blooms
  // leave them (the same choice when every project is probed).
  if (costs.reduce((best, c) => (c[1] < best[1] ? c : best))[0] === 'sort') return 'sort';
  return plan.rarestHolders <= maxHashed && hashOverProbes(plan.rarestHolders, plan.listed, walked, falsePass)
    ? 'hashed walk'
    : 'walk';
}

/**
 * Which authors a term may name: those whose username holds the term's gram held by the fewest
 * authors (a 1–2 character term: exactly those), confirmed by a substring test of the username
 * otherwise. Null when a gram of the term is in no listed author's username.
 */
export interface AuthorPlan {
  term: string;
  exact: boolean;
  rarest: string;
  /** Authors holding the rarest gram. */
  holders: number;
  /** Further words each of their projects must hold, in its own text or its author's name (planWords). */
  either: string[];
  /**
   * Per word of `either`, the gram of it the fewest projects' own text holds, probed before the
   * text is read (a word of 1–2 characters: exactly the word); null when no project's own text
   * can hold the word. Absent: the text is read.
   */
  eitherGrams?: Array<string | null>;
}

/**
 * The gram of `word` held by the fewest (`holders`), exactly the word for 1–2 characters; null when
 * one of its grams has no holder (nothing there can hold the word).
 */
function rarestGram(word: string, holders: ReadonlyMap<string, number>): string | null {
  const count = (g: string) => holders.get(g) ?? 0;
  const grams = termGrams(word);
  return grams.some((g) => !count(g)) ? null : grams.reduce((a, b) => (count(b) < count(a) ? b : a));
}

export function planAuthors(
  term: string,
  authorHolders: ReadonlyMap<string, number>,
  either: readonly string[] = [],
  /** Each gram's holders by the projects' own text (in scope), for `eitherGrams`. */
  ownHolders?: ReadonlyMap<string, number>,
): AuthorPlan | null {
  const grams = termGrams(term);
  const holders = (g: string) => authorHolders.get(g) ?? 0;
  if (grams.some((g) => !holders(g))) return null;
  const rarest = grams.reduce((a, b) => (holders(b) < holders(a) ? b : a));
  const plan: AuthorPlan = {
    term,
    exact: Array.from(term).length <= 2,
    rarest,
    holders: holders(rarest),
    either: [...either],
  };
  if (ownHolders) plan.eitherGrams = either.map((w) => rarestGram(w, ownHolders));
  return plan;
}

/**
 * The plan of a term of several words (searchWords), each of which a match holds somewhere: in
 * its own text (name, description, site name) or its author's name, a word in one and another in
 * the other. A word no listed author's name can hold (a gram of it in none) must be in the own
 * text. The plans weighed (the cheapest taken, `wordsCost`):
 * - the own text alone, when some words must be there: the candidates are the holders of the
 *   rarest gram among those words, narrowed by the others' grams, and every word is confirmed by
 *   a substring test (the author's name read only for a word an author may hold that the own
 *   text lacks); `authors` null;
 * - led by one word an author may hold, searched as one term is, its own text (`plan`, with the
 *   words that must be there: the rarest gram among them all, the others narrowing) and its
 *   authors' listed projects (`authors`), each of the other words tested on what they find.
 * Null when nothing can match.
 */
export function planWords(
  words: readonly string[],
  opts: {
    featured: boolean;
    listed: number;
    /** Each gram's holders in scope, by the projects' own text. */
    holders: ReadonlyMap<string, number>;
    /** Each gram's holders among the listed authors' usernames. */
    authorHolders: ReadonlyMap<string, number>;
    /** The listed projects (in scope) of the authors holding each gram. */
    authorProjects: ReadonlyMap<string, number>;
    dialect: Dialect;
  },
): { plan: SearchPlan | null; authors: AuthorPlan | null } | null {
  const { authorHolders, authorProjects, ...scope } = opts;
  const ownOnly = words.filter((w) => !planAuthors(w, authorHolders));
  const mayBeAuthors = words.filter((w) => !ownOnly.includes(w));
  const options: Array<{ plan: SearchPlan | null; authors: AuthorPlan | null; cost: number }> = [];
  if (ownOnly.length > 0) {
    const plan = planSearch(ownOnly.join(' '), { ...scope, either: mayBeAuthors });
    // A word that must be in the own text is in none: nothing matches.
    if (!plan) return null;
    options.push({ plan, authors: null, cost: wordsCost(plan) });
  }
  for (const word of mayBeAuthors) {
    const others = mayBeAuthors.filter((w) => w !== word);
    const plan = planSearch([word, ...ownOnly].join(' '), { ...scope, either: others });
    const authors = planAuthors(word, authorHolders, [...ownOnly, ...others], scope.holders)!;
    const cost = (plan ? wordsCost(plan) : 0) + (authorProjects.get(authors.rarest) ?? 0);
    options.push({ plan, authors, cost });
  }
  const best = options.reduce((a, b) => (b.cost < a.cost ? b : a));
  return { plan: best.plan, authors: best.authors };
}

/**
 * What finding a plan's matches costs, in candidates' texts read (the substring tests): those its
 * grams leave, and its gram postings and probes, each about a tenth of a text read
 * (docs/decisions/serving.md "Grams").
 */
export function wordsCost(plan: SearchPlan): number {
  return plan.expected + (plan.rarestHolders * (1 + plan.narrows.length)) / 10;
}

/**
 * Counting what a term finds in both the projects' own text and their authors' names: the
 * projects both find are counted once, by testing the smaller side against the other, when that
 * side has at most this many; past it the total shown is a lower bound ("N+").
 */
export const OVERLAP_MAX = 5_000;

/**
 * Testing a walked project's owner against the authors a term names, on SQLite, as a share of
 * walking past a project with its grams probed (measured at 1,000,000 projects: 16,400 projects
 * walked in 0.5 ms, the owner read from the order index, against 0.27 µs a project probed).
 */
export const OWNER_TEST = 0.1;

/**
 * How the page of a search that also finds authors' projects is fetched: every match sorted (the
 * text's candidates and the authors' projects), or the listed projects walked in the page's
 * order, each tested against both. `sorted`: the rows a sort reads; `total`: the matches (a lower
 * bound when capped).
 */
export function mixedStrategy(
  dialect: Dialect,
  q: { page: number; pageSize: number },
  est: {
    listed: number;
    sorted: number;
    total: number;
    textTested: boolean;
    /** Authors the term may name (the rarest gram's holders), and whether they are exactly those. */
    authorHolders: number;
    authorsExact: boolean;
  },
): 'sort' | 'walk' | 'probed walk' {
  const walked = (q.page * q.pageSize * est.listed) / Math.max(est.total, 1);
  const text = est.textTested ? 1 : 0;
  // On SQLite a walked project costs 1 with its grams probed, and OWNER_TEST more for its owner
  // looked up among the authors, read first (about 0.3 an author); probed instead, 1 more.
  // On PostgreSQL the authors are hashed (PG_COST.hashHolder each, a lookup hashedRow), or each
  // walked project's owner is probed among the term's gram's holders (PG_COST.probe): a letter
  // most usernames hold names thousands of authors, and such a term's page is a walk of a few
  // dozen projects.
  const costs: Array<['sort' | 'walk' | 'probed walk', number]> =
    dialect !== 'postgres'
      ? [
          ['sort', SORT_COST * est.sorted],
          ['walk', 0.3 * est.authorHolders + walked * (text + OWNER_TEST)],
        ]
      : [
          ['sort', est.sorted * PG_COST.sorted],
          [
            'walk',
            est.authorHolders * PG_COST.hashHolder + walked * (PG_COST.hashedRow + text * PG_COST.probe),
          ],
        ];
  if (est.authorsExact)
    costs.push(['probed walk', walked * (dialect !== 'postgres' ? text + 1 : (text + 1) * PG_COST.probe)]);
  return costs.reduce((best, c) => (c[1] < best[1] ? c : best))[0];
}

/**
 * The most authors a search of several words reads to find its matches author by author
 * (planOwners): past it (a letter most usernames hold) the search is led by one word (planWords).
 */
export const OWNERS_MAX = 5_000;

/**
 * A search of several words found author by author (docs/decisions/serving.md "Owners on the
 * postings"). A project matches when its own text holds every word its author's name lacks, so
 * the matches are those of two kinds, each project of one:
 * - its author's name holds none of the words, and its own text holds them all: `own`, searched
 *   as one term of every word is, its authors' projects left out;
 * - its author's name holds some: for each such author (`authorGrams` find them), the projects
 *   whose own text holds the other words, one range of the gram index (gram, owner) for the
 *   rarest of those words' grams (`ownGrams`, `words` in that order), each word then tested; all
 *   the author's projects when their name holds every word.
 */
export interface OwnersPlan {
  featured: boolean;
  /** Every word, those whose own-text gram is rarest first. */
  words: string[];
  /** Per word: the gram of the author index whose holders are the authors whose name may hold it; null when none may. */
  authorGrams: Array<string | null>;
  /**
   * Per word: the gram of the projects' own text held by the fewest (the word itself for 1–2
   * characters); null when no project's own text can hold it.
   */
  ownGrams: Array<string | null>;
  /** The projects whose own text holds every word; null when a word is in none. */
  own: SearchPlan | null;
  /** The authors read, at most (each word's author gram's holders). */
  authors: number;
}

/**
 * The plan of a term of several words found author by author; null when no word may be in an
 * author's name (the own text alone answers: planWords), when more than OWNERS_MAX authors would
 * be read, or when nothing can match.
 */
export function planOwners(
  words: readonly string[],
  /** planWords' counts, less the authors' projects (each author's range is read instead). */
  opts: Omit<Parameters<typeof planWords>[1], 'authorProjects'>,
): OwnersPlan | null {
  const own = (g: string) => opts.holders.get(g) ?? 0;
  const ownGramOf = (w: string) => rarestGram(w, opts.holders);
  const rarity = (w: string) => {
    const g = ownGramOf(w);
    return g === null ? -1 : own(g);
  };
  const ordered = [...words].sort((a, b) => rarity(a) - rarity(b));
  const authorGrams = ordered.map((w) => planAuthors(w, opts.authorHolders)?.rarest ?? null);
  if (authorGrams.every((g) => g === null)) return null;
  // A word no project's own text holds must be in the author's name: nothing matches without it.
  if (ordered.some((w, i) => ownGramOf(w) === null && authorGrams[i] === null)) return null;
  const authors = authorGrams.reduce((n, g) => n + (g === null ? 0 : (opts.authorHolders.get(g) ?? 0)), 0);
  if (authors > OWNERS_MAX) return null;
  const ownGrams = ordered.map(ownGramOf);
  return {
    featured: opts.featured,
    words: ordered,
    authorGrams,
    ownGrams,
    own: ownGrams.includes(null)
      ? null
      : planSearch(ordered.join(' '), {
          featured: opts.featured,
          listed: opts.listed,
          holders: opts.holders,
          dialect: opts.dialect,
        }),
    authors,
  };
}

/**
 * The matches a search found author by author is expected to have were its words independent:
 * each word held by a project's own text or its author's name, as often as the larger of its own
 * gram's holders and the listed projects of the authors holding its author gram.
 */
export function ownersExpected(
  op: OwnersPlan,
  /** Each gram's holders in scope, by the projects' own text. */
  holders: ReadonlyMap<string, number>,
  /** The listed projects (in scope) of the authors holding each gram. */
  authorProjects: ReadonlyMap<string, number>,
  listed: number,
): number {
  if (listed <= 0) return 0;
  return op.words.reduce((n, _, i) => {
    const own = op.ownGrams[i] == null ? 0 : (holders.get(op.ownGrams[i]!) ?? 0);
    const named = op.authorGrams[i] == null ? 0 : (authorProjects.get(op.authorGrams[i]!) ?? 0);
    return (n * Math.min(listed, Math.max(own, named))) / listed;
  }, listed);
}

/**
 * A page walked while its matches are counted (PostgreSQL, services/showcase.ts) reads at most
 * this many times the listed projects a page of `limit` matches spread evenly would need: a walk
 * that turns out not to be needed (fewer matches than the limit) stays bounded, and one that
 * finds less than its page within them is walked again whole.
 */
export const WALK_AHEAD = 4;

/**
 * How many times more projects than expected a walk ahead bounded by its bits' passes allows to
 * pass: the bits pass for more than the matches (a project holding each of a term's grams apart,
 * and a bit set by another gram), so the bound is loose on purpose.
 */
export const PASS_SLACK = 4;

/**
 * The bound of a walk ahead on PostgreSQL, in projects whose gram bloom holds the words' bits
 * (search/bloom.ts), for a walk that would otherwise read the first `within` listed projects:
 * PASS_SLACK times as many as those are expected to pass, each a match (`expected` of `listed`,
 * at least the count's `limit`) or a false pass of the bits (`falsePass`). The scan tests the
 * bits itself and stops at the bound or when the page is full: with the matches at least the
 * limit, the page is full within about `within` / WALK_AHEAD projects whatever the bits do, and the
 * walk ahead finds it whenever at least one passing project in PASS_SLACK × WALK_AHEAD (16)
 * matches.
 */
export function walkAheadPasses(
  within: number,
  expected: number,
  listed: number,
  limit: number,
  falsePass: number,
): number {
  const share = Math.min(1, PASS_SLACK * (Math.max(expected, limit) / Math.max(listed, 1) + falsePass));
  return Math.max(1, Math.ceil(within * share));
}

/**
 * Whether a search of several words with `total` matches, counted already and fewer than the
 * limit, collects its page author by author (true) or walks the listed projects in the page's
 * order (false), in index probes: author by author, the own text's candidates each probed for
 * its narrowing grams and a text read for those they leave (about three probes), two probes an
 * author and the sort of every match; walking, a probe and an owner test per project walked.
 * `zhang react` at 100,000 projects: about 500 against 8,600 (153 matches, 7,843 walked);
 * `react 地图`: 9,500 against 2,700 (481 matches: the walk is short).
 */
export function collectByOwners(
  op: OwnersPlan,
  q: { page: number; pageSize: number },
  listed: number,
  total: number,
): boolean {
  const own = op.own ? op.own.rarestHolders * (1 + op.own.narrows.length) + op.own.expected * 3 : 0;
  const collect = own + op.authors * 2 + total * SORT_COST;
  const walk = ((q.page * q.pageSize * listed) / Math.max(total, 1)) * (1 + OWNER_TEST);
  return collect <= walk;
}
