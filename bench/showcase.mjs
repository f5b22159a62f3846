#!/usr/bin/env node
// Showcase benchmark: 100,000 (or --n 1000000) live public projects seeded straight into the
// database (SQLite, and PostgreSQL when TEST_DATABASE_URL or --pg URL is given; --sqlite-only,
// --pg-only), a chunk of 20,000 per transaction in multi-row INSERTs of 1,000, then the showcase query as the server
// runs it (server/dist's services/showcase.js): the first page of each sort, and searches for Chinese terms
// of 1, 2 and 4 characters (common and rare), an ASCII term, an author and terms of two words. Prints
// median and p95.
//   npm run bench:showcase [-- --pg postgres://postgres@127.0.0.1:5432/test] [--n 1000000] [--runs 200]
//   --keep DIR keeps the SQLite file in DIR and the PostgreSQL schema bench_showcase_kept (for
//   another --n, bench_showcase_kept_N), and
//   reuses them when run again; --only REGEX runs the queries whose label matches.
// The queries run in this process as in the server's, under the server's Node options
// (bench/lib.mjs SERVER_NODE_ARGS, `npm run serve`'s): without them the bench re-runs itself with
// them. Each query's line says how many of its timed runs held one of this process's garbage
// collections (`gc`), and the summary how many of the runs slower than 3× their median did.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { SERVER_NODE_ARGS } from './lib.mjs';

// An option given on the command line (`node --initial-heap-size=64 bench/showcase.mjs`) is kept.
const optionName = (arg) => arg.split('=')[0];
const missing = SERVER_NODE_ARGS.filter(
  (arg) => !process.execArgv.some((given) => optionName(given) === optionName(arg)),
);
if (missing.length > 0) {
  const r = spawnSync(process.execPath, [...process.execArgv, ...missing, ...process.argv.slice(1)], {
    stdio: 'inherit',
  });
  process.exit(r.status ?? 1);
}

const root = path.resolve(import.meta.dirname, '..');
const { openDatabase, migrateToLatest } = await import(path.join(root, 'server/dist/db/database.js'));
const { createShowcaseService } = await import(path.join(root, 'server/dist/services/showcase.js'));
const { searchText } = await import(path.join(root, 'server/dist/services/projects.js'));
const { ownBloom } = await import(path.join(root, 'server/dist/search/bloom.js'));
const { loadConfig } = await import(path.join(root, 'server/dist/config.js'));

const { values: args } = parseArgs({
  options: {
    pg: { type: 'string' },
    n: { type: 'string', default: '100000' },
    // 200 runs: the 95th percentile of 40 is their second slowest, one stray run from the median.
    runs: { type: 'string', default: '200' },
    'sqlite-only': { type: 'boolean', default: false },
    'pg-only': { type: 'boolean', default: false },
    // Keep the seeded databases and reuse them on the next run (for working on the queries).
    keep: { type: 'string' },
    only: { type: 'string' },
  },
});
const N = Number(args.n);
const RUNS = Number(args.runs);
const pgUrl = args['sqlite-only'] ? undefined : (args.pg ?? process.env.TEST_DATABASE_URL);

// ---- Deterministic data that reads like real projects ---------------------------------------
let prng = 20240601;
function rand() {
  // mulberry32
  prng = (prng + 0x6d2b79f5) | 0;
  let x = Math.imul(prng ^ (prng >>> 15), 1 | prng);
  x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
  return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
}
const pick = (list) => list[Math.floor(rand() * list.length)];
/** Skewed pick: the first words of a list are the common ones (roughly Zipf). */
const pickSkewed = (list) => list[Math.floor(list.length * rand() ** 2.2)];

const WORDS = `个人 博客 主页 作品 展示 网站 站点 设计 前端 开发 学习 笔记 游戏 小游戏 工具 在线 计算 数据
可视 图表 地图 天气 音乐 播放 视频 相册 摄影 旅行 美食 菜谱 读书 电影 课程 作业 实验 报告 毕业 简历 求职 公司
官网 产品 介绍 活动 报名 问卷 调查 投票 商城 购物 订单 支付 会员 登录 注册 管理 后台 系统 平台 社区 论坛 新闻
资讯 文章 教程 文档 手册 帮助 中心 关于 我们 联系 地址 时间 日历 计划 任务 清单 提醒 番茄 时钟 倒计时 动画 特效
粒子 三维 模型 物理 化学 数学 语文 英语 历史 地理 生物 编程 算法 排序 搜索 迷宫 贪吃蛇 俄罗斯 方块 扫雷 五子棋
象棋 围棋 拼图 记忆 翻牌 答题 测验 词典 翻译 诗词 古文 书法 绘画 色彩 字体 图标 组件 模板 主题 样式 布局 响应
移动 适配 小程序 应用 插件 扩展 示例 演示 练习 项目 课题 研究 科普 环保 公益 志愿 校园 社团 班级 同学 毕业季 纪念
旅游 攻略 景点 酒店 交通 城市 北京 上海 广州 深圳 杭州 成都 西安 南京 武汉 重庆 春节 中秋 端午 元宵 国庆 生日
祝福 贺卡 婚礼 邀请 相亲 宠物 猫咪 狗狗 花园 植物 健身 跑步 瑜伽 篮球 足球 乒乓 羽毛球 游泳 滑雪 登山 骑行`
  .split(/\s+/)
  .filter(Boolean);
const ENGLISH = `react vue html css javascript canvas webgl three svg demo portfolio blog landing page
game snake tetris todo weather clock timer chart dashboard gallery resume markdown editor music
player quiz chess puzzle map travel recipe shop cart login form admin ui kit template theme`
  .split(/\s+/)
  .filter(Boolean);
const SURNAMES =
  '王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢'.split(
    '',
  );
const GIVEN =
  '伟芳娜秀英敏静丽强磊军洋勇艳杰娟涛明超秀兰霞平刚桂英华玉萍红娥玲芬芳燕彩春菊兰凤洁梅琳素云莲真环雪荣爱妹霞香月莺媛艳瑞凡佳嘉琼勤珍贞莉桂娣叶璧璐娅琦晶妍茜秋珊莎锦黛青倩婷姣婉娴瑾颖露瑶怡婵雁蓓纨仪荷丹蓉眉君琴蕊薇菁梦岚苑婕馨瑗琰韵融园艺咏卿聪澜纯毓悦昭冰爽琬茗羽希宁欣飘育滢馥筠柔竹霭凝晓欢霄枫芸菲寒伊亚宜可姬舒影荔枝思丽'.split(
    '',
  );
const PINYIN = 'zhang wang li liu chen yang huang zhao wu zhou xu sun ma zhu hu guo he gao lin luo'.split(
  ' ',
);

function username(i) {
  if (rand() < 0.35) return `${pick(SURNAMES)}${pick(GIVEN)}${rand() < 0.6 ? pick(GIVEN) : ''}${i}`;
  return `${pick(PINYIN)}_${pick(ENGLISH)}${i}`;
}
function projectName() {
  const parts = [];
  const k = 1 + Math.floor(rand() * 3);
  for (let i = 0; i < k; i++) parts.push(rand() < 0.15 ? pick(ENGLISH) : pickSkewed(WORDS));
  return parts.join(rand() < 0.3 ? ' ' : '').slice(0, 50);
}
function description() {
  if (rand() < 0.1) return null;
  const k = 4 + Math.floor(rand() * 22);
  let s = '';
  for (let i = 0; i < k; i++) {
    s += rand() < 0.1 ? ` ${pick(ENGLISH)} ` : pickSkewed(WORDS);
    if (rand() < 0.2) s += pick(['，', '。', '、', '！']);
  }
  return s.slice(0, 500);
}

// ---- Seeding --------------------------------------------------------------------------------
const USERS = Math.max(2000, Math.round(N / 50));
/** Rows per INSERT: 17 columns × 1,000 rows stays under SQLite's 32,766 and PostgreSQL's 65,535 parameters. */
const BATCH = 1000;
/** Projects made and written per transaction. */
const CHUNK = 20_000;

async function insertBatches(db, table, rows) {
  for (let i = 0; i < rows.length; i += BATCH)
    await db
      .insertInto(table)
      .values(rows.slice(i, i + BATCH))
      .execute();
}

async function seed(handle) {
  const { db } = handle;
  if (args.keep) {
    const r = await sql`select count(*) as n from projects`.execute(db);
    if (Number(r.rows[0].n) === N) {
      await createShowcaseService(db, handle.dialect).refreshIndex();
      const repo = createShowcaseService(db, handle.dialect);
      const cold = createShowcaseService(db, handle.dialect, { rememberCounts: false });
      return { repo, cold, seedMs: 0, indexMs: 0 };
    }
  }
  prng = 20240601;
  const t0 = performance.now();
  const at = (i) => new Date(Date.UTC(2023, 0, 1) + i * 300_000).toISOString();
  const users = [];
  for (let i = 1; i <= USERS; i++) {
    const name = username(i);
    users.push({
      username: name,
      username_key: name.toLowerCase(),
      email: null,
      role: 'user',
      avatar: null,
      password_hash: 'x',
      disabled: 0,
      created_at: at(0),
      updated_at: at(0),
      last_login_at: null,
    });
  }
  await insertBatches(db, 'users', users);
  // Made and written a chunk at a time, each chunk one transaction: memory stays bounded at any N
  // (a million projects held at once took gigabytes), and SQLite commits once per chunk.
  for (let from = 1; from <= N; from += CHUNK) {
    const projects = [];
    const deployments = [];
    for (let i = from; i < Math.min(N + 1, from + CHUNK); i++) {
      const ownerIndex = 1 + Math.floor(rand() * USERS);
      const name = projectName() || `项目${i}`;
      const desc = description();
      const featured = rand() < 0.05;
      // About 2% must never show: half private, half not live.
      const hidden = rand() < 0.02 ? (rand() < 0.5 ? 'private' : 'not-live') : null;
      projects.push({
        id: i,
        owner_id: ownerIndex,
        name,
        description: desc,
        status: hidden === 'not-live' ? 'pending' : featured ? 'published' : 'approved',
        is_public: hidden === 'private' ? 0 : 1,
        live_deployment_id: hidden === 'not-live' ? null : i,
        latest_deployment_id: i,
        featured: featured ? 1 : 0,
        view_count: Math.floor(rand() ** 3 * 50_000),
        download_count: 0,
        approved_at: at(i),
        approved_by: 1,
        published_at: null,
        created_at: at(i),
        updated_at: at(i),
        search_text: searchText(name, desc, users[ownerIndex - 1].username, null),
        // As the server writes a row (repositories/projects.ts): its bloom with its search text.
        ...(handle.dialect === 'postgres'
          ? { gram_bloom: ownBloom(searchText(name, desc, users[ownerIndex - 1].username, null)) }
          : {}),
      });
      deployments.push({
        id: i,
        project_id: i,
        version: 1,
        status: 'approved',
        upload_type: 'zip',
        file_count: 1 + Math.floor(rand() * 200),
        total_size: Math.floor(rand() * 20_000_000),
        entry_file: 'index.html',
        content_check: null,
        created_by: ownerIndex,
        created_at: at(i),
        reviewed_at: at(i),
        reviewed_by: 1,
        review_comment: null,
      });
    }
    await db.transaction().execute(async (trx) => {
      await insertBatches(trx, 'projects', projects);
      await insertBatches(trx, 'deployments', deployments);
    });
    if (N >= 200_000 && (from - 1) % 100_000 === 0)
      console.log(
        `  seeded ${(from - 1 + projects.length).toLocaleString('en')} (${((performance.now() - t0) / 1000).toFixed(0)} s)`,
      );
  }
  if (handle.dialect === 'postgres') {
    for (const t of ['users', 'projects', 'deployments'])
      await sql`select setval(pg_get_serial_sequence(${t}, 'id'), (select max(id) from ${sql.table(t)}))`.execute(
        db,
      );
  }
  const seeded = performance.now() - t0;
  const repo = createShowcaseService(db, handle.dialect);
  const t1 = performance.now();
  // The search index is kept from a queue the triggers fill; the seed queued every project.
  const progress =
    N >= 200_000
      ? setInterval(async () => {
          const r = await sql`select count(*) as n from showcase_queue`.execute(db);
          console.log(
            `  index: ${Number(r.rows[0].n).toLocaleString('en')} queued (${((performance.now() - t1) / 1000).toFixed(0)} s)`,
          );
        }, 60_000)
      : null;
  await repo.refreshIndex();
  if (progress) clearInterval(progress);
  const indexMs = performance.now() - t1;
  await analyze(handle);
  // Cold: every search counts its matches afresh (first search of a term since the index changed).
  const cold = createShowcaseService(db, handle.dialect, { rememberCounts: false });
  return { repo, cold, seedMs: seeded, indexMs };
}

/** What autovacuum would have done by the time anyone searches: statistics, dead rows cleared. */
async function analyze(handle) {
  await sql.raw(handle.dialect === 'postgres' ? 'vacuum analyze' : 'analyze').execute(handle.db);
}

// ---- Measuring --------------------------------------------------------------------------------
const QUERIES = [
  ['list: latest', { sort: 'latest' }],
  ['list: popular', { sort: 'popular' }],
  ['list: name', { sort: 'name' }],
  ['list: featured', { sort: 'latest', featured: true }],
  ['list: page 50', { sort: 'latest', page: 50 }],
  ['search 1 char, common (站)', { search: '站' }],
  ['search 1 char, rare (璐)', { search: '璐' }],
  ['search 2 chars, common (游戏)', { search: '游戏' }],
  ['search 2 chars, rare (骑行)', { search: '骑行' }],
  ['search 2 chars, absent (量子)', { search: '量子' }],
  ['search 4 chars (个人博客)', { search: '个人博客' }],
  ['search 4 chars (在线工具)', { search: '在线工具' }],
  ['search 4 chars, absent (量子力学)', { search: '量子力学' }],
  ['search ASCII (snake)', { search: 'Snake' }],
  ['search author (zhang_react)', { search: 'zhang_react' }],
  ['search 3 chars (小游戏), popular sort', { search: '小游戏', sort: 'popular' }],
  ['search 1 char, popular sort (游)', { search: '游', sort: 'popular' }],
  ['search 1 char, rare, page 5 (璐)', { search: '璐', page: 5 }],
  ['search 2 chars, featured (博客)', { search: '博客', featured: true }],
  // Every word held somewhere (docs/decisions/serving.md "Showcase listing and search"): two words
  // of the projects' text; one an author's name may hold too; both.
  ['search two words (个人 博客)', { search: '个人 博客' }],
  ['search two words, one in authors (react 地图)', { search: 'react 地图' }],
  ['search two words, both in authors (zhang react)', { search: 'zhang react' }],
];

function quantile(sorted, q) {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/** This process's garbage collections: [start, end] in performance.now() time. */
const collections = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) collections.push([e.startTime, e.startTime + e.duration]);
}).observe({ entryTypes: ['gc'] });

/**
 * The reference's times (PostgreSQL): a statement that reads nothing (`select 1`), asked of the
 * same pool right after each timed run, so that it shares the run's minutes and the machine's
 * state. Its tail is the round trip's own: the client, the server process and the kernel between
 * them; none of the showcase's work.
 */
const roundTrips = [];

async function timeQuery(repo, query, roundTrip) {
  let total = 0;
  for (let i = 0; i < 3; i++) total = (await repo.list(query)).total; // warm-up
  const runs = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    await repo.list(query);
    runs.push([t0, performance.now()]);
    if (roundTrip) {
      const r0 = performance.now();
      await roundTrip();
      roundTrips.push(performance.now() - r0);
    }
  }
  // The observer hears of a collection a turn of the event loop later.
  await new Promise((resolve) => setTimeout(resolve, 1));
  const held = runs.map(([t0, t1]) => collections.some(([g0, g1]) => g0 < t1 && g1 > t0));
  const times = runs.map(([t0, t1]) => t1 - t0);
  const sorted = [...times].sort((a, b) => a - b);
  const median = quantile(sorted, 0.5);
  const slow = times.flatMap((t, i) => (t > 3 * median ? [held[i]] : []));
  return {
    total,
    median,
    p95: quantile(sorted, 0.95),
    gc: held.filter(Boolean).length,
    slow: slow.length,
    slowGc: slow.filter(Boolean).length,
  };
}

async function measure(setup) {
  const results = [];
  const asked = QUERIES.filter(([label]) => !args.only || new RegExp(args.only).test(label));
  // The whole mix once first, as a server in steady state has run it: the first query measured
  // otherwise paid for the process's and each pooled connection's first statements.
  for (const [, q] of asked) {
    const query = { sort: 'latest', featured: false, page: 1, pageSize: 12, ...q };
    await setup.cold.list(query);
    await setup.repo.list(query);
  }
  for (const [label, q] of QUERIES) {
    if (args.only && !new RegExp(args.only).test(label)) continue;
    const query = { sort: 'latest', featured: false, page: 1, pageSize: 12, ...q };
    const cold = await timeQuery(setup.cold, query, setup.roundTrip);
    const warm = q.search ? await timeQuery(setup.repo, query, setup.roundTrip) : cold;
    results.push({ label, total: cold.total, cold, warm });
  }
  return results;
}

function print(engine, setup, results) {
  console.log(
    `\n${engine}: ${N.toLocaleString('en')} projects seeded in ${(setup.seedMs / 1000).toFixed(1)} s; search index built in ${(setup.indexMs / 1000).toFixed(1)} s`,
  );
  console.log('cold: the match count is computed; warm: the count is remembered (repeat search, next page)');
  const head = ['query', 'matches', 'cold med', 'cold p95', 'warm med', 'warm p95', 'gc'];
  console.log(
    `${head[0].padEnd(40)} ${head
      .slice(1)
      .map((h) => h.padStart(9))
      .join(' ')}`,
  );
  const ms = (v) => v.toFixed(2).padStart(9);
  for (const r of results) {
    console.log(
      `${r.label.padEnd(40)} ${String(r.total).padStart(9)} ${ms(r.cold.median)} ${ms(r.cold.p95)} ${ms(r.warm.median)} ${ms(r.warm.p95)} ${String(r.cold.gc + (r.warm === r.cold ? 0 : r.warm.gc)).padStart(9)}`,
    );
  }
  const lists = results.filter((r) => r.label.startsWith('list'));
  const searches = results.filter((r) => r.label.startsWith('search'));
  const median = (xs) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const worst = (xs) => Math.max(...xs);
  const listWorst = worst(lists.map((r) => r.cold.median));
  const searchWorst = worst(searches.map((r) => Math.max(r.cold.median, r.warm.median)));
  // p95 within 3× the median, each query cold and warm (a tail the median hides).
  const spread = results.flatMap((r) => [r.cold, r.warm].map((m) => m.p95 / m.median));
  const verdict = (ok) => (ok ? 'MET' : 'MISSED');
  const measured = results.flatMap((r) => (r.warm === r.cold ? [r.cold] : [r.cold, r.warm]));
  const sum = (f) => measured.reduce((n, m) => n + f(m), 0);
  console.log(
    `runs slower than 3× their median: ${sum((m) => m.slow)} of ${measured.length * RUNS}, ${sum((m) => m.slowGc)} of them holding a collection; runs holding one: ${sum((m) => m.gc)}`,
  );
  if (roundTrips.length > 0) {
    const sorted = [...roundTrips].sort((a, b) => a - b);
    const [rtMedian, rtP95, rtP99] = [0.5, 0.95, 0.99].map((q) => quantile(sorted, q));
    console.log(
      `reference, the same minutes: a statement reading nothing (select 1) on the same pool after each run: median ${rtMedian.toFixed(3)} ms, p95 ${rtP95.toFixed(3)}, p99 ${rtP99.toFixed(3)} (p95/median ${(rtP95 / rtMedian).toFixed(2)}); ${roundTrips.filter((t) => t > 3 * rtMedian).length} of ${roundTrips.length} slower than 3× its median, ${roundTrips.filter((t) => t > 1).length} over 1 ms`,
    );
  }
  console.log(
    (lists.length > 0
      ? `list: worst median ${listWorst.toFixed(2)} ms (target ≤ 1 ms: ${verdict(listWorst <= 1)}); `
      : '') +
      // --only may leave no search (or no list) to sum up.
      (searches.length > 0
        ? `search: median of medians ${median(searches.map((r) => r.cold.median)).toFixed(2)} ms cold, ${median(searches.map((r) => r.warm.median)).toFixed(2)} ms warm; ` +
          `worst median ${worst(searches.map((r) => r.cold.median)).toFixed(2)} ms cold, ${worst(searches.map((r) => r.warm.median)).toFixed(2)} ms warm (target ≤ 5 ms: ${verdict(searchWorst <= 5)}); `
        : '') +
      `worst p95/median ${worst(spread).toFixed(2)} (target ≤ 3: ${verdict(worst(spread) <= 3)}); ` +
      `RSS of the querying process ${(process.memoryUsage().rss / 1024 / 1024).toFixed(0)} MB; load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
  );
}

async function runSqlite() {
  const dir = args.keep ?? fs.mkdtempSync(path.join(os.tmpdir(), 'sitehall-bench-showcase-'));
  fs.mkdirSync(dir, { recursive: true });
  const handle = openDatabase({ kind: 'sqlite', file: path.join(dir, 'bench.db') });
  try {
    await migrateToLatest(handle);
    const setup = await seed(handle);
    print('SQLite', setup, await measure(setup));
  } finally {
    await handle.close();
    if (!args.keep) fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * PostgreSQL's buffer cache against the schema's tables and indexes: a page outside
 * shared_buffers is read from the kernel's cache on every visit (docs/benchmarks.md
 * "PostgreSQL's buffer cache is not what bounds these figures").
 */
async function printBuffers(admin, schema) {
  const buffers = (await admin.query('show shared_buffers')).rows[0].shared_buffers;
  const { rows } = await admin.query(
    `select c.relname, pg_total_relation_size(c.oid)::float8 as bytes
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = $1 and c.relkind = 'r' order by 2 desc`,
    [schema],
  );
  const mb = (b) => `${(b / 1024 / 1024).toFixed(0)} MB`;
  const total = rows.reduce((n, r) => n + r.bytes, 0);
  const largest = rows
    .slice(0, 4)
    .map((r) => `${r.relname} ${mb(r.bytes)}`)
    .join(', ');
  console.log(
    `\nshared_buffers ${buffers}; the schema's tables with their indexes ${mb(total)} (${largest})`,
  );
  console.log(`PostgreSQL's speed now: ${await pgSpeed(admin)}`);
}

/**
 * A fixed piece of PostgreSQL's CPU work (200,000 rows generated and counted), median of 21: the
 * same statements on the same schema read up to 1.5 times apart an hour apart on one virtual
 * machine, and this tells a slower host from a slower query (docs/benchmarks.md "The host's
 * speed moves every figure").
 */
async function pgSpeed(admin) {
  const times = [];
  for (let i = 0; i < 21; i++) {
    const t0 = performance.now();
    await admin.query('select count(*) from generate_series(1, 200000)');
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return `200,000 rows counted in ${times[10].toFixed(2)} ms (median of 21)`;
}

async function runPostgres(url) {
  const { default: pg } = await import('pg');
  // Kept apart by size, so a kept 100,000 and a kept 1,000,000 can both be measured again.
  const kept = N === 100_000 ? 'bench_showcase_kept' : `bench_showcase_kept_${N}`;
  const schema = args.keep ? kept : `bench_showcase_${process.pid}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create schema ${args.keep ? 'if not exists ' : ''}${schema}`);
  const handle = openDatabase({ kind: 'postgres', url, schema });
  try {
    await migrateToLatest(handle);
    const seeded = await seed(handle);
    // Measured on a pool opened as the server opens its own (app.ts: config.databaseTimeouts, so
    // each query carries the server's statement timeout); the seeding's has none (a vacuum of
    // 1,000,000 projects takes longer than a request may).
    const serving = openDatabase(
      { kind: 'postgres', url, schema },
      { timeouts: loadConfig({}).databaseTimeouts },
    );
    try {
      await printBuffers(admin, schema);
      const setup = {
        ...seeded,
        repo: createShowcaseService(serving.db, serving.dialect),
        cold: createShowcaseService(serving.db, serving.dialect, { rememberCounts: false }),
        roundTrip: () => sql`select 1 as one`.execute(serving.db),
      };
      print('PostgreSQL', setup, await measure(setup));
    } finally {
      await serving.close();
    }
  } finally {
    await handle.close();
    if (!args.keep) await admin.query(`drop schema ${schema} cascade`);
    await admin.end();
  }
}

console.log(
  `SiteHall showcase benchmark — ${os.cpus()[0]?.model ?? 'cpu'} ×${os.cpus().length}, Node ${process.version} ${process.execArgv.join(' ')}`,
);
if (!args['pg-only']) await runSqlite();
if (pgUrl) await runPostgres(pgUrl);
else console.log('\n(PostgreSQL skipped: set TEST_DATABASE_URL or pass --pg URL)');
