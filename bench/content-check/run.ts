/**
 * The content check measured like a classifier (docs/content-check.md "Evaluation"): every site of
 * the evaluation corpus is checked statically and then rendered in Debian's Chromium through the
 * server's own render code, its runtime findings merged as the render worker merges them. Prints,
 * per part (tuning, held-out, held-out-2) and per level, the hostile sites caught and the ordinary
 * sites flagged, against the targets, with MET/MISSED.
 *   npm run bench:content                     seed 1 for the tuning part, random held-out seeds
 *   npm run bench:content -- --seed 7 --held-out-seed 42 --held-out-2-seed 5 --no-render --verbose
 *   npm run bench:content -- --part held-out-2   one part only (tuning, held-out or held-out-2)
 */
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import type { ContentCheckReport } from '@sitehall/contracts';
import { analyzeSite, type FileText } from '../../server/src/content-check/analyze.js';
import { mergeRuntime } from '../../server/src/content-check/runtime.js';
import { chromiumMissing, RenderBrowser } from '../../server/src/render/browser.js';
import { type Observations, renderPage } from '../../server/src/render/render-page.js';
import { compileSiteRules } from '../../server/src/serve/site-rules.js';
import { hostileSites, ordinarySites } from './corpus.js';
import { heldOutHostile, heldOutOrdinary } from './held-out.js';
import { heldOut2Hostile, heldOut2Ordinary } from './held-out-2.js';
import { type EvalSite, rng } from './kit.js';

const { values: args } = parseArgs({
  options: {
    seed: { type: 'string', default: '1' },
    'held-out-seed': { type: 'string' },
    'held-out-2-seed': { type: 'string' },
    part: { type: 'string' },
    'no-render': { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
    only: { type: 'string' },
  },
});
const seed = Number(args.seed);
const heldOutSeed = Number(args['held-out-seed'] ?? Math.floor(Math.random() * 1e9));
const heldOut2Seed = Number(args['held-out-2-seed'] ?? Math.floor(Math.random() * 1e9));
const PARTS = ['tuning', 'held-out', 'held-out-2'];
if (args.part && !PARTS.includes(args.part)) {
  console.error(`--part is one of ${PARTS.join(', ')}`);
  process.exit(2);
}
const inPart = (name: string) => !args.part || args.part === name;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const render = !args['no-render'];
if (render && chromiumMissing(CHROMIUM)) {
  console.error(chromiumMissing(CHROMIUM));
  process.exit(1);
}

const TEXT = /\.(html?|js|mjs|css|svg|json|webmanifest|txt|md|xml)$/i;
const MIME: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  htm: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  mjs: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
  json: 'application/json',
  webmanifest: 'application/manifest+json',
  png: 'image/png',
};

function staticCheck(site: EvalSite): ContentCheckReport {
  const list: FileText[] = Object.entries(site.files)
    .filter(([p, body]) => typeof body === 'string' && TEXT.test(p))
    .map(([p, body]) => ({
      path: p,
      size: Buffer.byteLength(body),
      extension: p.slice(p.lastIndexOf('.') + 1).toLowerCase(),
      text: body as string,
      complete: true,
    }));
  return analyzeSite(list, 'index.html');
}

const browser = new RenderBrowser(CHROMIUM, { pagesBeforeRestart: () => 50 });

async function runtimeOf(
  site: EvalSite,
  id: number,
): Promise<{ obs: Observations | null; error: string | null }> {
  const files = new Map(
    Object.entries(site.files).map(([p, body]) => {
      const ext = p.slice(p.lastIndexOf('.') + 1).toLowerCase();
      const file = {
        path: p,
        size: Buffer.byteLength(body),
        mime_type: MIME[ext] ?? 'application/octet-stream',
        sha256: p,
      };
      return [p, file] as const;
    }),
  );
  try {
    const result = await renderPage(
      await browser.get(),
      {
        // The default install's address for a visitor on localhost (domain/site-urls.ts liveSiteAddress).
        address: `http://p${id}.localhost:3001/`,
        entryFile: 'index.html',
        files,
        // Its _redirects and _headers, as the live site (and the worker) applies them.
        routing:
          typeof site.files._redirects === 'string' || typeof site.files._headers === 'string'
            ? {
                rules: compileSiteRules({
                  ...(typeof site.files._redirects === 'string' ? { redirects: site.files._redirects } : {}),
                  ...(typeof site.files._headers === 'string' ? { headers: site.files._headers } : {}),
                }),
                spaFallback: false,
                cleanUrls: false,
              }
            : null,
        read: async (f) => Readable.from([Buffer.from(site.files[f.path]!)]),
      },
      { allowPublicAssets: false },
    );
    return { obs: result.observations, error: null };
  } catch (err) {
    await browser.close();
    return { obs: null, error: (err as Error).message.split('\n')[0]!.slice(0, 80) };
  }
}

interface Row {
  site: EvalSite;
  staticLevel: string;
  level: string;
  rules: string[];
  reason: string;
  renderError: string | null;
}

async function evaluate(sites: EvalSite[]): Promise<Row[]> {
  const rows: Row[] = [];
  let id = 1;
  for (const site of sites) {
    let report = staticCheck(site);
    const staticLevel = report.level;
    let renderError: string | null = null;
    if (render) {
      const { obs, error } = await runtimeOf(site, id++);
      renderError = error;
      if (obs) report = mergeRuntime(report, obs, false, new Date().toISOString());
    }
    const rules = [
      ...new Set(
        report.findings
          .filter((f) => f.category === 'risk' && (f.severity === 'high' || f.severity === 'medium'))
          .map((f) => `${f.severity === 'high' ? '!' : ''}${f.rule}`),
      ),
    ];
    rows.push({ site, staticLevel, level: report.level, rules, reason: report.reason, renderError });
  }
  return rows;
}

const pct = (a: number, b: number) => `${a}/${b} (${((100 * a) / Math.max(1, b)).toFixed(0)}%)`;

function print(title: string, rows: Row[]): boolean {
  console.log(`\n${title}`);
  for (const r of rows) {
    const flagged = r.level === 'high' || r.level === 'medium';
    const mark =
      r.site.group === 'hostile'
        ? r.level === 'high'
          ? 'high'
          : flagged
            ? 'medium (not high)'
            : 'MISSED'
        : flagged
          ? 'FALSE ALARM'
          : 'ok';
    console.log(
      `  ${r.site.group.padEnd(8)} ${r.site.name.padEnd(26)} static ${r.staticLevel.padEnd(6)} → ${r.level.padEnd(6)} ${mark.padEnd(17)} ${r.rules.join(' ')}${r.renderError ? `  [render: ${r.renderError}]` : ''}`,
    );
    if (args.verbose) console.log(`      ${r.site.what}; ${r.reason}`);
  }
  const hostile = rows.filter((r) => r.site.group === 'hostile');
  const ordinary = rows.filter((r) => r.site.group === 'ordinary');
  const at = (rs: Row[], levels: string[]) => rs.filter((r) => levels.includes(r.level)).length;
  const hHigh = at(hostile, ['high']);
  const hFlag = at(hostile, ['high', 'medium']);
  const oHigh = at(ordinary, ['high']);
  const oFlag = at(ordinary, ['high', 'medium']);
  const hStatic = hostile.filter((r) => ['high', 'medium'].includes(r.staticLevel)).length;
  const oStatic = ordinary.filter((r) => ['high', 'medium'].includes(r.staticLevel)).length;
  const verdict = (ok: boolean) => (ok ? 'MET' : 'MISSED');
  const t1 = hFlag === hostile.length;
  const t2 = hHigh * 10 >= hostile.length * 9;
  const t3 = oFlag * 20 <= ordinary.length;
  console.log(`  level        hostile caught   ordinary flagged`);
  console.log(`  high         ${pct(hHigh, hostile.length).padEnd(16)} ${pct(oHigh, ordinary.length)}`);
  console.log(`  medium+high  ${pct(hFlag, hostile.length).padEnd(16)} ${pct(oFlag, ordinary.length)}`);
  console.log(`  static only  ${pct(hStatic, hostile.length).padEnd(16)} ${pct(oStatic, ordinary.length)}`);
  console.log(`  every hostile site at medium or high: ${verdict(t1)}`);
  console.log(`  at least 9 in 10 hostile sites at high: ${verdict(t2)}`);
  console.log(`  at most 1 ordinary site in 20 at medium or high: ${verdict(t3)}`);
  return t1 && t2 && t3;
}

const filter = (sites: EvalSite[]) => (args.only ? sites.filter((s) => s.name.includes(args.only!)) : sites);
console.log(
  `content check evaluation: tuning seed ${seed}, held-out seed ${heldOutSeed}, held-out-2 seed ${heldOut2Seed}, render ${render ? `on (${CHROMIUM})` : 'off'}`,
);
let ok = true;
try {
  if (inPart('tuning')) {
    const t = rng(seed);
    const tuning = filter([...(await ordinarySites(t)), ...(await hostileSites(t))]);
    ok = print(`tuning part (seed ${seed})`, await evaluate(tuning)) && ok;
  }
  if (inPart('held-out')) {
    const h = rng(heldOutSeed);
    const held = filter([...(await heldOutOrdinary(h)), ...(await heldOutHostile(h))]);
    ok = print(`held-out part (seed ${heldOutSeed}; rules are not tuned on it)`, await evaluate(held)) && ok;
  }
  if (inPart('held-out-2')) {
    // Written blind in session 65 (docs/content-check.md "Evaluation"), by someone who had not read the check.
    const h2 = rng(heldOut2Seed);
    const held2 = filter([...(await heldOut2Ordinary(h2)), ...(await heldOut2Hostile(h2))]);
    ok =
      print(
        `held-out-2 part (seed ${heldOut2Seed}; written blind, rules are not tuned on it)`,
        await evaluate(held2),
      ) && ok;
  }
} finally {
  await browser.close();
}
console.log(`\n${ok ? 'all targets MET' : 'targets MISSED'}`);
process.exitCode = ok ? 0 : 1;
