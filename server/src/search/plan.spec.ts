/** The showcase search planner, without a database: normalisation, grams, narrowing, strategy. */
import { describe, expect, it } from 'vitest';
import {
  COUNT_CAP,
  collectByOwners,
  countAndSortFirst,
  countLimit,
  gramsOf,
  hashableHolders,
  hashOverProbes,
  mixedStrategy,
  normaliseTerm,
  OWNERS_MAX,
  ownersExpected,
  PASS_SLACK,
  PG_HASH_MAX_HOLDERS,
  pageStrategy,
  planAuthors,
  planOwners,
  planSearch,
  planWords,
  type SearchPlan,
  searchWords,
  splitSearchText,
  termGrams,
  WALK_AHEAD,
  walkAheadPasses,
} from './plan.js';

const holders = (entries: Record<string, number>) => new Map(Object.entries(entries));

describe('search terms', () => {
  it('folds full-width letters and digits, lower-cases, and collapses white space', () => {
    expect(normaliseTerm('  ＡＢＣ１２　 个人\t博客 ')).toBe('abc12 个人 博客');
    expect(normaliseTerm(undefined)).toBe('');
    expect(normaliseTerm(' \n ')).toBe('');
  });

  it('cuts a text into distinct 1- and 2-character grams by code point, never across lines', () => {
    expect([...gramsOf('ab\nb𠀀')].sort()).toEqual(['a', 'ab', 'b', 'b𠀀', '𠀀'].sort());
    expect(gramsOf('aaa')).toEqual(new Set(['a', 'aa']));
  });

  it('searches a term of up to 2 characters as itself, a longer one by its distinct bigrams', () => {
    expect(termGrams('站')).toEqual(['站']);
    expect(termGrams('博客')).toEqual(['博客']);
    expect(termGrams('个人博客')).toEqual(['个人', '人博', '博客']);
    expect(termGrams('aaaa')).toEqual(['aa']);
  });

  it('splits a term into its words at spaces, each once, leaving out a word another holds', () => {
    expect(searchWords(normaliseTerm('  路由　 测试 '))).toEqual(['路由', '测试']);
    expect(searchWords('react 博客 react')).toEqual(['react', '博客']);
    // Wherever 博客 is, 博 is: the search is for 博客.
    expect(searchWords('博 博客')).toEqual(['博客']);
    expect(searchWords('个人博客')).toEqual(['个人博客']);
  });
});

describe('planSearch', () => {
  const base = { featured: false, listed: 100_000, dialect: 'sqlite' as const };

  it('finds nothing when one of the term’s grams has no holder', () => {
    expect(planSearch('量子力学', { ...base, holders: holders({ 量子: 0, 子力: 3, 力学: 9 }) })).toBeNull();
    expect(planSearch('量子', { ...base, holders: holders({}) })).toBeNull();
  });

  it('answers a 1–2 character term exactly from its gram: no narrowing, its holders are the matches', () => {
    const plan = planSearch('博客', { ...base, holders: holders({ 博客: 1742 }) })!;
    expect(plan).toMatchObject({
      exact: true,
      rarest: '博客',
      rarestHolders: 1742,
      narrows: [],
      expected: 1742,
    });
  });

  it('starts from the rarest bigram and narrows with the farthest non-overlapping rare ones', () => {
    // 个人 is rare; 博客 is far from it and held by under half; 人博 overlaps both; 客x is common.
    const plan = planSearch('个人博客x', {
      ...base,
      holders: holders({ 个人: 300, 人博: 50_000, 博客: 2_000, 客x: 60_000 }),
    })!;
    expect(plan.exact).toBe(false);
    expect(plan.rarest).toBe('个人');
    expect(plan.narrows).toEqual(['博客']);
    expect(plan.joined).toEqual([true]);
    expect(plan.expected).toBeCloseTo((300 * 2_000) / 100_000);
  });

  it('narrows with at most three grams', () => {
    const plan = planSearch('一二三四五六七八九十', {
      ...base,
      holders: holders({
        一二: 10,
        二三: 20,
        三四: 30,
        四五: 40,
        五六: 50,
        六七: 60,
        七八: 70,
        八九: 80,
        九十: 90,
      }),
    })!;
    expect(plan.rarest).toBe('一二');
    expect(plan.narrows).toHaveLength(3);
    // The first pick is the farthest from 一二.
    expect(plan.narrows[0]).toBe('九十');
  });

  it('narrows an ASCII word with one of its bigrams at most: they come together', () => {
    // `react 地图`: re would be probed for each of ac's holders and leave nearly all of them (35 of
    // 3,509 at 100,000 projects; on PostgreSQL those probes were 31 of the count's 42 ms).
    const plan = planSearch('react 地图', {
      ...base,
      holders: holders({ re: 17_972, ea: 9_486, ac: 3_509, ct: 4_786, 地图: 10_076 }),
    })!;
    expect(plan.rarest).toBe('ac');
    expect(plan.narrows).toEqual(['地图']);
    // Two ASCII words: one gram of each.
    const two = planSearch('snake canvas', {
      ...base,
      holders: holders({
        sn: 3_000,
        na: 3_100,
        ak: 3_000,
        ke: 3_050,
        ca: 4_000,
        an: 9_000,
        nv: 3_500,
        va: 5_000,
        as: 9_000,
      }),
    })!;
    expect(two.rarest).toBe('sn');
    expect(two.narrows).toHaveLength(1);
    expect(['ca', 'an', 'nv', 'va', 'as']).toContain(two.narrows[0]);
  });

  it('on PostgreSQL joins a narrowing gram only when hashing its holders costs less than probing every candidate a count reads', () => {
    const pg = { ...base, listed: 1_000_000, dialect: 'postgres' as const };
    // `snake`: every holder of sn also holds ke (held by as many: one word), so a count reads
    // the rarest's postings only up to the cap: 500 probes cost less than hashing ke's 35,090
    // holders. Taken as independent, they would expect 1,256 matches and 13,963 probes.
    const snake = planSearch('snake', {
      ...pg,
      holders: holders({ sn: 35_080, na: 35_097, ak: 35_080, ke: 35_090 }),
    })!;
    expect(snake).toMatchObject({ rarest: 'sn', narrows: [], joined: [], expected: 35_080 });
    // Grams of words apart that together leave fewer matches than the cap: every one of the
    // rarest gram's 20,000 postings is read, and hashing each narrowing gram costs less than
    // probing it that often.
    const zhang = planSearch('个人博客网站', {
      ...pg,
      holders: holders({ 个人: 20_000, 人博: 900_000, 博客: 30_000, 客网: 900_000, 网站: 25_000 }),
    })!;
    expect(zhang).toMatchObject({ rarest: '个人', narrows: ['网站', '博客'] });
    expect(zhang.joined).toEqual(zhang.narrows.map(() => true));
    // SQLite joins every narrowing gram (a probe per candidate either way).
    expect(
      planSearch('个人博客网站', {
        ...pg,
        dialect: 'sqlite',
        holders: holders({ 个人: 20_000, 人博: 900_000, 博客: 300_000, 客网: 900_000, 网站: 400_000 }),
      })!.joined,
    ).toEqual([true, true]);
  });
  it('on PostgreSQL counts from the gram sets when the count reads the postings whole, from the postings when it stops early', () => {
    // `react 地图` at 100,000 projects: 353 matches expected, under the cap: every posting of ac
    // and 地图 is read either way, and the sets read them for a tenth of a join's cost.
    const few = {
      ...base,
      dialect: 'postgres' as const,
      holders: holders({ re: 6_000, ea: 5_000, ac: 3_509, ct: 3_600, 地图: 10_076 }),
    };
    expect(planSearch('react 地图', few)).toMatchObject({ rarest: 'ac', narrows: ['地图'], sets: true });
    // `网站 工具` at 1,000,000: 22,966 expected, 500+: a count reads 2,567 of 工具's 117,931
    // postings, each probed for 网站, where the sets would read all 308,753 postings.
    const many = {
      ...base,
      listed: 979_881,
      dialect: 'postgres' as const,
      holders: holders({ 网站: 190_822, 工具: 117_931 }),
    };
    expect(planSearch('网站 工具', many)).toMatchObject({
      rarest: '工具',
      narrows: ['网站'],
      joined: [false],
      sets: false,
    });
    // One gram (no intersection), and SQLite (no sets), never.
    expect(planSearch('地图', few)!.sets).toBe(false);
    expect(planSearch('react 地图', { ...few, dialect: 'sqlite' })!.sets).toBe(false);
  });
});

describe('several words', () => {
  const base = { featured: false, listed: 100_000, dialect: 'sqlite' as const };
  const none = holders({});

  it('picks the candidates from the rarest gram among all the words, narrowed by the others, every word tested', () => {
    // 路由 is rarer than any bigram of 测试站: the candidates are its holders, wherever it is.
    const plan = planSearch('测试站 路由', {
      ...base,
      holders: holders({ 测试: 4_000, 试站: 900, 路由: 120 }),
    })!;
    expect(plan).toMatchObject({
      words: ['测试站', '路由'],
      either: [],
      exact: false,
      rarest: '路由',
      rarestHolders: 120,
    });
    // Another word's grams are a space away from the rarest: they narrow.
    expect(plan.narrows[0]).toBe('测试');
    // Two words of 1–2 characters are each a gram, but a project must hold both: tested.
    const two = planSearch('个 人', { ...base, holders: holders({ 个: 9_000, 人: 20_000 }) })!;
    expect(two).toMatchObject({ exact: false, rarest: '个', narrows: ['人'] });
    // A word none holds: nothing matches, whichever word is rarest.
    expect(planSearch('路由 量子', { ...base, holders: holders({ 路由: 120 }) })).toBeNull();
  });

  it('searches the own text when a word can be in no author’s name, testing a word that could be an author’s in either', () => {
    const planned = planWords(['react', '博客'], {
      ...base,
      holders: holders({ re: 5_000, ea: 5_500, ac: 6_000, ct: 6_100, 博客: 1_700 }),
      authorHolders: holders({ re: 30, ea: 40, ac: 35, ct: 33 }),
      authorProjects: holders({ re: 3_000 }),
    })!;
    expect(planned.authors).toBeNull();
    expect(planned.plan).toMatchObject({ words: ['博客'], either: ['react'], rarest: '博客', exact: false });
    // 地图 alone leaves 10,076 candidates to read (100,000 projects, the bench's counts): led by
    // react instead, its own text's candidates are ac's 3,509 narrowed by 地图 (≈360 read), and
    // the 1,057 projects of the 22 authors whose names hold it are tested for 地图.
    const led = planWords(['react', '地图'], {
      ...base,
      holders: holders({ re: 13_157, ea: 6_956, ac: 3_509, ct: 3_512, 地图: 10_076 }),
      authorHolders: holders({ re: 118, ea: 53, ac: 22, ct: 22 }),
      authorProjects: holders({ re: 5_726, ea: 2_615, ac: 1_057, ct: 1_057 }),
    })!;
    expect(led.plan).toMatchObject({ words: ['react', '地图'], either: [], rarest: 'ac' });
    expect(led.plan!.narrows[0]).toBe('地图');
    expect(led.authors).toMatchObject({ term: 'react', rarest: 'ac', either: ['地图'] });
    // 地图 is probed among the authors' projects as its own gram: no text read.
    expect(led.authors!.eitherGrams).toEqual(['地图']);
    // Nothing can hold a word whose own-text grams no project holds and no author's name either.
    expect(
      planWords(['react', '量子'], {
        ...base,
        holders: holders({ re: 5_000, ea: 5_500, ac: 6_000, ct: 6_100 }),
        authorHolders: holders({ re: 30, ea: 40, ac: 35, ct: 33 }),
        authorProjects: none,
      }),
    ).toBeNull();
  });

  it('leads with the word of fewest candidates when every word may be an author’s, the others tested on what it finds', () => {
    // zhang is in no project's own text and in 24 authors' names (1,200 projects); react is in
    // 5,000 projects' text and 30 authors' names (1,500 projects).
    const planned = planWords(['react', 'zhang'], {
      ...base,
      holders: holders({ re: 5_000, ea: 5_500, ac: 6_000, ct: 6_100 }),
      authorHolders: holders({ re: 30, ea: 40, ac: 35, ct: 33, zh: 24, ha: 300, an: 400, ng: 200 }),
      authorProjects: holders({ zh: 1_200, re: 1_500, ct: 1_600 }),
    })!;
    expect(planned.plan).toBeNull();
    expect(planned.authors).toMatchObject({ term: 'zhang', rarest: 'zh', either: ['react'] });
    // react's rarest gram in the own text is probed before a text is read.
    expect(planned.authors!.eitherGrams).toEqual(['re']);
    // When the text's candidates are few, the word's own text and authors lead together.
    const byText = planWords(['react', 'zhang'], {
      ...base,
      holders: holders({ re: 50, ea: 55, ac: 60, ct: 61 }),
      authorHolders: holders({ re: 3, ea: 4, ac: 3, ct: 3, zh: 65, ha: 300, an: 400, ng: 200 }),
      authorProjects: holders({ zh: 3_250, re: 150, ct: 160 }),
    })!;
    expect(byText.plan).toMatchObject({ words: ['react'], either: ['zhang'], rarest: 're' });
    expect(byText.authors).toMatchObject({ term: 'react', either: ['zhang'] });
  });
});

describe('how a page is fetched', () => {
  const plan = (p: Partial<SearchPlan>): SearchPlan => ({
    term: 'abc',
    words: ['abc'],
    either: [],
    dialect: 'sqlite',
    featured: false,
    exact: false,
    listed: 100_000,
    rarest: 'ab',
    rarestHolders: 1000,
    narrows: [],
    joined: [],
    sets: false,
    expected: 1000,
    ...p,
  });

  it('counts up to the cap, or one past the page asked for', () => {
    expect(countLimit(1, 12)).toBe(COUNT_CAP);
    expect(countLimit(50, 12)).toBe(601);
    expect(countLimit(1, 12, 20)).toBe(20);
  });

  it('counts and sorts in one pass only when the candidates likely stay under the limit', () => {
    expect(countAndSortFirst(plan({ expected: 250 }), 500)).toBe(true);
    expect(countAndSortFirst(plan({ expected: 251 }), 500)).toBe(false);
  });

  it('sorts few matches and walks the list for many', () => {
    const q = { page: 1, pageSize: 12 };
    expect(pageStrategy(plan({}), q, 40, false)).toBe('sort');
    expect(pageStrategy(plan({}), q, 2000, false)).toBe('walk');
    // Deeper pages walk further: sorting becomes the cheaper.
    expect(pageStrategy(plan({}), { page: 20, pageSize: 12 }, 2000, false)).toBe('sort');
  });

  it('on PostgreSQL walks with the rarest gram hashed when that is the cheapest, never past the hash bound', () => {
    const pg = (p: Partial<SearchPlan>) =>
      plan({ dialect: 'postgres', exact: true, listed: 1_000_000, ...p });
    const q = { page: 1, pageSize: 12 };
    // 璐: 3,658 holders; page 1 reads ~3,300 projects, page 5 ~16,000: the hash (1.8 ms) beats
    // probing them (6 and 29 ms) and sorting every match (14 ms).
    const rare = pg({ rarestHolders: 3658 });
    expect(pageStrategy(rare, q, 3658, false)).toBe('hashed walk');
    expect(pageStrategy(rare, { page: 5, pageSize: 12 }, 3658, false)).toBe('hashed walk');
    // 站: 326,225 holders, 37 projects read: probing them is cheaper than any hash.
    expect(pageStrategy(pg({ rarestHolders: 326_225 }), q, 326_225, false)).toBe('walk');
    // A handful of matches: sorted.
    expect(pageStrategy(pg({ rarestHolders: 40 }), q, 40, false)).toBe('sort');
    // Past PG_HASH_MAX_HOLDERS no hash, however long the walk.
    const many = pg({ rarestHolders: PG_HASH_MAX_HOLDERS + 1, exact: false });
    expect(pageStrategy(many, { page: 40, pageSize: 12 }, 500, true)).not.toBe('hashed walk');
    // Nor past what the server's hash memory holds: PostgreSQL's default (4 MB × 2) allows the
    // full 20,000; a work_mem of 64 kB (× 2) only 655, so 璐 is probed.
    expect(hashableHolders(8 * 1024 * 1024)).toBe(PG_HASH_MAX_HOLDERS);
    expect(hashableHolders(128 * 1024)).toBe(655);
    expect(pageStrategy(rare, q, 3658, false, hashableHolders(128 * 1024))).toBe('walk');
    expect(pageStrategy(rare, q, 3658, false, hashableHolders(8 * 1024 * 1024))).toBe('hashed walk');
    // SQLite never hashes.
    expect(
      pageStrategy(plan({ listed: 1_000_000, rarestHolders: 3658, exact: true }), q, 3658, false),
    ).not.toBe('hashed walk');
  });

  it('on PostgreSQL probes rather than hashes when the blooms leave few walked projects to probe', () => {
    const q = { page: 1, pageSize: 12 };
    const pg = (p: Partial<SearchPlan>) => plan({ dialect: 'postgres', listed: 100_000, ...p });
    // react 地图's ac at 100,000 projects: 3,509 holders (1.75 ms to hash, 0.9 measured), a walk
    // of ~2,500 projects of which its 12 bits leave ~3.5 % (the holders) to probe (0.16 ms).
    expect(hashOverProbes(3509, 100_000, 2500, 0.25 ** 12)).toBe(false);
    // Every walked project probed (bits not tested): the hash is the cheaper, as before.
    expect(hashOverProbes(3509, 100_000, 2500)).toBe(true);
    // One bit (璐): a quarter of the walk still probed, and a long walk: hashed.
    expect(hashOverProbes(3658, 1_000_000, 16_000, 0.25)).toBe(true);
    // The page's strategy: sorted or walked as before, then probed or hashed as the bits leave it.
    const ac = pg({ rarestHolders: 3509, exact: false, expected: 3509 });
    expect(pageStrategy(ac, q, 500, true)).toBe('hashed walk');
    expect(pageStrategy(ac, q, 500, true, PG_HASH_MAX_HOLDERS, 0.25 ** 12)).toBe('walk');
    expect(pageStrategy(pg({ rarestHolders: 40 }), q, 40, false, PG_HASH_MAX_HOLDERS, 0.25 ** 12)).toBe(
      'sort',
    );
  });

  it('sorts a capped count only when the rarest gram bounds the matches closely enough', () => {
    const q = { page: 1, pageSize: 12 };
    // 500+ matches among 808 holders of 1,000,000 listed: at most 808 to sort, a walk of ~24,000.
    const few = plan({ listed: 1_000_000, rarestHolders: 808 });
    expect(pageStrategy(few, q, 500, true)).toBe('sort');
    // 500+ among 41,000 holders: the walk (~24,000) is cheaper than sorting up to 41,000.
    const many = plan({ listed: 1_000_000, rarestHolders: 41_000 });
    expect(pageStrategy(many, q, 500, true)).toBe('walk');
  });
});

describe('authors apart', () => {
  it("splits a project's text into its own lines and its author, the last line", () => {
    expect(splitSearchText('名字\n说明\n第二行\nzhang_react')).toEqual({
      own: '名字\n说明\n第二行',
      author: 'zhang_react',
    });
    expect(splitSearchText('名字')).toEqual({ own: '名字', author: '' });
  });

  it('looks for authors only when every gram of the term is in some author name, by the rarest', () => {
    expect(
      planAuthors(
        'zhang_react',
        holders({
          zh: 900,
          ha: 1200,
          an: 3000,
          ng: 2500,
          g_: 800,
          _r: 400,
          re: 600,
          ea: 700,
          ac: 650,
          ct: 640,
        }),
      ),
    ).toEqual({
      term: 'zhang_react',
      exact: false,
      rarest: '_r',
      holders: 400,
      either: [],
    });
    // 个人 is in no author's name: no author can hold 个人博客.
    expect(planAuthors('个人博客', holders({ 人博: 3, 博客: 2 }))).toBeNull();
    expect(planAuthors('璐', holders({ 璐: 70 }))).toEqual({
      term: '璐',
      exact: true,
      rarest: '璐',
      holders: 70,
      either: [],
    });
  });

  it('sorts the matches when few, walks the listed projects when many', () => {
    const q = { page: 1, pageSize: 12 };
    const only = (n: number, authorHolders: number, authorsExact = false) => ({
      listed: 1_000_000,
      sorted: n,
      total: n,
      textTested: false,
      authorHolders,
      authorsExact,
    });
    // 300 projects of 6 authors among 1,000,000: sorting 300 beats walking ~40,000.
    expect(mixedStrategy('sqlite', q, only(300, 6))).toBe('sort');
    expect(mixedStrategy('postgres', q, only(300, 6))).toBe('sort');
    // 璐's 3,658 projects of 75 authors: a walk of ~3,300 projects, each owner looked up among
    // the 75, beats sorting (and probing each owner).
    expect(mixedStrategy('sqlite', q, only(3658, 75, true))).toBe('walk');
    expect(mixedStrategy('postgres', q, only(3658, 75, true))).toBe('walk');
    // Its fifth page is a walk of ~16,400 on SQLite still (an owner test is a tenth of a probe).
    expect(mixedStrategy('sqlite', { page: 5, pageSize: 12 }, only(3658, 75, true))).toBe('walk');
    // `a`, in 13,000 authors' names (450,000 projects): a walk of ~26 projects, each owner probed,
    // rather than a list of 13,000 authors made first.
    expect(mixedStrategy('sqlite', q, only(450_000, 13_000, true))).toBe('probed walk');
    expect(mixedStrategy('postgres', q, only(450_000, 13_000, true))).toBe('probed walk');
    // 11,500 authors' projects and 500+ text matches: a page is a walk of about 1,000.
    const many = { ...only(11_500, 289), sorted: 60_000, textTested: true };
    expect(mixedStrategy('sqlite', q, many)).toBe('walk');
    expect(mixedStrategy('postgres', q, many)).toBe('walk');
  });
});

describe('author by author', () => {
  const scope = { featured: false, listed: 100_000, dialect: 'sqlite' as const };
  // The bench's 100,000 projects: react in 22 usernames (ac), zhang in 200 (ha), 地图 in none.
  const own = holders({
    re: 17_972,
    ea: 9_486,
    ac: 3_509,
    ct: 4_786,
    地图: 10_076,
    zh: 0,
    ha: 0,
    an: 9_000,
    ng: 8_000,
  });
  const authors = holders({ re: 40, ea: 30, ac: 22, ct: 25, zh: 400, ha: 200, an: 900, ng: 800 });

  it('reads the authors each word may name, the words in the order of their rarest own-text gram', () => {
    const op = planOwners(['地图', 'react'], { ...scope, holders: own, authorHolders: authors })!;
    expect(op).toMatchObject({
      words: ['react', '地图'],
      ownGrams: ['ac', '地图'],
      authorGrams: ['ac', null],
      authors: 22,
    });
    // Their projects whose own text holds both: the plan of both words.
    expect(op.own).toMatchObject({ words: ['react', '地图'], rarest: 'ac', narrows: ['地图'] });
  });

  it('has no own-text plan when a word is in no project’s own text: its author’s name must hold it', () => {
    const op = planOwners(['zhang', 'react'], { ...scope, holders: own, authorHolders: authors })!;
    expect(op.own).toBeNull();
    expect(op.words[0]).toBe('zhang');
    expect(op.ownGrams[0]).toBeNull();
    expect(op.authors).toBe(200 + 22);
  });

  it('is not taken when no word may be an author’s, when nothing can match, or past OWNERS_MAX authors', () => {
    expect(
      planOwners(['地图', '天气'], {
        ...scope,
        holders: holders({ 地图: 10, 天气: 10 }),
        authorHolders: authors,
      }),
    ).toBeNull();
    // 量子 is in no own text and no name.
    expect(planOwners(['量子', 'react'], { ...scope, holders: own, authorHolders: authors })).toBeNull();
    const everyone = holders({ a: OWNERS_MAX + 1 });
    expect(
      planOwners(['a', '地图'], {
        ...scope,
        holders: holders({ a: 50_000, 地图: 10 }),
        authorHolders: everyone,
      }),
    ).toBeNull();
  });

  it('collects a counted page author by author when that reads less than walking to it', () => {
    const q = { page: 1, pageSize: 12 };
    const zhangReact = planOwners(['zhang', 'react'], { ...scope, holders: own, authorHolders: authors })!;
    // 153 matches: a walk passes 7,843 projects; author by author reads 222 authors.
    expect(collectByOwners(zhangReact, q, 100_000, 153)).toBe(true);
    const reactMap = planOwners(['react', '地图'], { ...scope, holders: own, authorHolders: authors })!;
    // 481 matches: a walk passes 2,495; author by author probes 地图 for ac's 3,509 holders.
    expect(collectByOwners(reactMap, q, 100_000, 481)).toBe(false);
    // Deeper pages walk farther.
    expect(collectByOwners(reactMap, { page: 5, pageSize: 12 }, 100_000, 481)).toBe(true);
  });

  it('expects each word as often as the larger of its own-text gram and its authors’ projects', () => {
    // The authors holding ha list 10,000 projects, those holding ac 1,100.
    const projects = holders({ ha: 10_000, ac: 1_100 });
    const zhangReact = planOwners(['zhang', 'react'], { ...scope, holders: own, authorHolders: authors })!;
    // zhang: 10,000 (no own text holds zh); react: ac's 3,509 own holders.
    expect(ownersExpected(zhangReact, own, projects, 100_000)).toBeCloseTo((10_000 * 3_509) / 100_000);
    const reactMap = planOwners(['react', '地图'], { ...scope, holders: own, authorHolders: authors })!;
    expect(ownersExpected(reactMap, own, projects, 100_000)).toBeCloseTo((3_509 * 10_076) / 100_000);
    expect(ownersExpected(reactMap, own, projects, 0)).toBe(0);
  });
});

describe('a walk ahead bounded by its bits’ passes', () => {
  it('allows PASS_SLACK times the passes the first projects are expected to hold', () => {
    // 在线工具 at 1,000,000 projects: a page of 12 at the limit of 500 is walked within the first
    // 4 × 12 × 980,000 / 500 listed projects; 700 matches expected, its 7 bits pass by chance
    // 0.25^7 of the time.
    const within = (WALK_AHEAD * 12 * 980_000) / 500;
    const falsePass = 0.25 ** 7;
    expect(walkAheadPasses(within, 700, 980_000, 500, falsePass)).toBe(
      Math.ceil(within * PASS_SLACK * (700 / 980_000 + falsePass)),
    );
    // Fewer matches expected than the limit: the limit's share, as the bound on projects assumes.
    expect(walkAheadPasses(within, 100, 980_000, 500, falsePass)).toBe(
      walkAheadPasses(within, 500, 980_000, 500, falsePass),
    );
    // At least PASS_SLACK × WALK_AHEAD times the rows a page needs: the walk ahead finds its page
    // whenever one passing project in 16 matches.
    expect(walkAheadPasses(within, 500, 980_000, 500, 0)).toBeGreaterThanOrEqual(
      PASS_SLACK * WALK_AHEAD * 12,
    );
    // Never more passes than the projects it would otherwise have walked, nor none.
    expect(walkAheadPasses(1_000, 900, 1_000, 500, 0.5)).toBe(1_000);
    expect(walkAheadPasses(0.2, 1, 1_000_000, 500, 0)).toBe(1);
  });
});
