#!/usr/bin/env node
// Render benchmark (docs/render.md): 20 generated sites (text, CSS, a script, an SVG image, one
// external request that is aborted) rendered one after another in Debian's Chromium exactly as the
// worker does (server/dist's renderPage + RenderBrowser, thumbnails with sharp). Prints the median
// and p95 render time per site and the peak memory of the browser's process tree (PSS: resident
// memory with shared pages counted once, what the browser adds to the machine), against the targets: median <= 3 s, browser RSS <= 400 MB.
//   npm run bench:render [-- --sites 20]
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import { pad } from './lib.mjs';

const root = path.resolve(import.meta.dirname, '..');
const { renderPage } = await import(path.join(root, 'server/dist/render/render-page.js'));
const { RenderBrowser, chromiumMissing } = await import(path.join(root, 'server/dist/render/browser.js'));

const { values: args } = parseArgs({ options: { sites: { type: 'string', default: '20' } } });
const SITES = Number(args.sites);
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const missing = chromiumMissing(CHROMIUM);
if (missing) {
  console.error(missing);
  process.exit(1);
}

function site(i) {
  const paras = Array.from(
    { length: 30 },
    (_, k) => `<p>第 ${k + 1} 段：站点 ${i} 的示例文字，用于测试渲染。</p>`,
  ).join('');
  return new Map(
    Object.entries({
      'index.html': `<!doctype html><html><head><meta charset="utf-8"><title>站点 ${i}</title><link rel="stylesheet" href="style.css"></head><body><h1>站点 ${i}</h1><img src="logo.svg" width="120" height="120">${paras}<script src="app.js"></script></body></html>`,
      'style.css': `body{font-family:sans-serif;background:hsl(${(i * 37) % 360} 60% 95%);margin:2rem}h1{color:hsl(${(i * 37) % 360} 60% 35%)}`,
      'app.js': `document.querySelector('h1').textContent += ' ✓'; fetch('https://analytics.bench.invalid/hit?s=${i}').catch(() => {});`,
      'logo.svg': `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><circle cx="5" cy="5" r="4" fill="hsl(${(i * 53) % 360} 70% 50%)"/></svg>`,
    }).map(([p, text]) => {
      const body = Buffer.from(text);
      const mime = {
        html: 'text/html; charset=utf-8',
        css: 'text/css',
        js: 'text/javascript',
        svg: 'image/svg+xml',
      }[p.split('.').pop()];
      return [p, { path: p, size: body.length, mime_type: mime, sha256: p, body }];
    }),
  );
}

/** Memory (bytes, PSS) of this process's descendants (Playwright runs Chromium as a child), from /proc. */
function treeRss(pid) {
  const children = new Map();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid).push(Number(name));
    } catch {}
  }
  let total = 0;
  const stack = [...(children.get(pid) ?? [])];
  while (stack.length) {
    const p = stack.pop();
    try {
      // PSS: shared pages (Chromium's processes share most of their code) counted once in all.
      const m = /Pss:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${p}/smaps_rollup`, 'utf8'));
      if (m) total += Number(m[1]) * 1024;
    } catch {}
    stack.push(...(children.get(p) ?? []));
  }
  return total;
}

const browser = new RenderBrowser(CHROMIUM, { pagesBeforeRestart: () => 50 });
let peak = 0;
const sampler = setInterval(() => {
  peak = Math.max(peak, treeRss(process.pid));
}, 250);

const times = [];
let failed = 0;
let phonePasses = 0;
const first = performance.now();
for (let i = 0; i < SITES; i++) {
  const files = site(i);
  const t = performance.now();
  // A render that can't picture the page in time (a machine loaded far past its cores) is counted,
  // not fatal: the worker would retry it.
  const result = await renderPage(
    await browser.get(),
    {
      address: `http://p${i + 1}.localhost:3001/`,
      entryFile: 'index.html',
      files,
      read: async (f) => Readable.from([f.body]),
    },
    { allowPublicAssets: false },
  ).catch(async (err) => {
    if (err?.name !== 'RenderTimeout' && !/timeout/i.test(String(err?.message))) throw err;
    failed++;
    await browser.close();
    return null;
  });
  if (!result) continue;
  if (result.observations.profiles.includes('phone')) phonePasses++;
  await Promise.all(
    [
      [640, 400],
      [320, 200],
    ].map(([w, h]) =>
      sharp(result.screenshot)
        .resize(w, h, { fit: 'cover', position: 'top' })
        .webp({ quality: 80 })
        .toBuffer(),
    ),
  );
  times.push(performance.now() - t);
  if (result.observations.externalRequests.length !== 1)
    throw new Error('the external request was not recorded');
}
const total = performance.now() - first;
clearInterval(sampler);
await browser.close();

times.sort((a, b) => a - b);
const q = (p) => times[Math.min(times.length - 1, Math.floor(p * times.length))];
const median = q(0.5);
const mb = peak / 1024 / 1024;
console.log(`render: ${SITES} sites, one at a time, Chromium ${CHROMIUM}`);
console.log(`  first (with launch) ${pad(times.length ? Math.round(Math.max(...times)) : 0, 6)} ms max`);
console.log(
  `  median              ${pad(Math.round(median), 6)} ms   target <= 3000 ms  ${median <= 3000 ? 'ok' : 'MISSED'}`,
);
console.log(`  p95                 ${pad(Math.round(q(0.95)), 6)} ms`);
console.log(`  total               ${pad(Math.round(total), 6)} ms`);
console.log(
  `  phone passes        ${pad(phonePasses, 6)}      of ${times.length} rendered; ${failed} failed (screenshot timeout)`,
);
console.log(
  `  browser peak memory${pad(Math.round(mb), 6)} MB   target <= 400 MB   ${mb <= 400 ? 'ok' : 'MISSED'}`,
);
process.exit(0);
