#!/usr/bin/env node
// Serving benchmark: SiteHall's /sites against nginx serving the same files in the same run.
// Our built server (server/dist) runs on a temporary DATA_DIR with a project uploaded and approved
// through the API; Debian's nginx (one worker, its own nginx.conf, pid and logs in a temp dir) runs
// as a non-daemon child. Both servers share one core, wrk runs on the other (taskset), all over
// loopback. For an index.html, a 10 KB asset and a 1 MB file: the server CPU per request of each
// (issue 33's target: SiteHall's no more than nginx's for small files; the median of the rounds'
// ratios, the rounds alternating), requests/s and p99 latency at 50 connections. The same page again on a copy of the
// site that declares 200 rules (_redirects and _headers), asked by its name and through a rewrite
// at the end of the list: a site's own routing costs no more (docs/benchmarks.md).
//   npm run bench:serve [-- --duration 10 --connections 50 --rounds 3 --only REGEX]
// (--only measures the files whose label matches, e.g. --only asset.)
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  CLIENT_CPU,
  cpuMs,
  freePort,
  pad,
  png,
  publishSite,
  requireTools,
  SERVER_CPU,
  siteText,
  startNodeFloor,
  startServer,
  stopChildren,
  track,
  waitFor,
  wrk,
} from './lib.mjs';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '3' },
    only: { type: 'string' },
  },
});
const DURATION = Number(args.duration);
const CONNECTIONS = Number(args.connections);
const ROUNDS = Number(args.rounds);

requireTools(['nginx', 'wrk', 'taskset'], 'nginx wrk util-linux');

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'sitehall-bench-serve-'));
process.on('SIGINT', () => process.exit(130));

// ---- The site ---------------------------------------------------------------------------------
const FILES = {
  'index.html': `<!doctype html><html lang="zh-CN"><head><meta charset="utf-8"><title>基准站点</title><link rel="stylesheet" href="assets/app.css"></head><body>${siteText(5 * 1024, 1)}</body></html>`,
  'assets/app.css': siteText(10 * 1024, 7),
  'media/photo.png': png(1024 * 1024),
};
/** 160 redirects (the last a rewrite of every /app/ path to the page) and 40 header rules. */
const RULES_FILES = {
  ...FILES,
  _redirects: [
    ...Array.from({ length: 159 }, (_, i) => `/old/${i}/:slug /new/${i}/:slug 301`),
    '/app/* /index.html 200',
  ].join('\n'),
  _headers: [
    ...Array.from({ length: 39 }, (_, i) => `/section-${i}/*\n  Cache-Control: public, max-age=${i + 60}`),
    '/assets/*\n  Cache-Control: public, max-age=31536000, immutable',
  ].join('\n'),
};
// `rules`: asked of the site with rules; `same`: the path that has the same bytes on nginx.
// `cpuMax`: the most SiteHall's CPU per request may be of nginx's (issue 33: small files ≤ 1.0×).
const ALL_TARGETS = [
  { label: 'index.html (5 KB)', path: '', ratio: 0.7, p99: 5, cpuMax: 1.0 },
  { label: '10 KB asset', path: 'assets/app.css', ratio: 0.7, p99: 5, cpuMax: 1.0 },
  { label: '1 MB file', path: 'media/photo.png', ratio: 0.5, p99: null, cpuMax: null },
  { label: 'index, 200 rules', path: '', rules: true, ratio: 0.7, p99: 5, cpuMax: 1.0 },
  {
    label: 'rewrite, 200 rules',
    path: 'app/users/3',
    same: '',
    rules: true,
    ratio: 0.7,
    p99: 5,
    cpuMax: 1.0,
  },
];
const TARGETS = args.only ? ALL_TARGETS.filter((t) => new RegExp(args.only, 'i').test(t.label)) : ALL_TARGETS;

// ---- SiteHall -----------------------------------------------------------------------------------
async function startSiteHall() {
  const { base, sitesBase, child } = await startServer({ DATA_DIR: path.join(work, 'data') });
  const id = await publishSite(base, FILES, '基准测试站点');
  const withRules = await publishSite(base, RULES_FILES, '基准测试站点（200 条规则）');
  // Sites are served on the sites port; the app port's /sites/{id}/ is a redirect to it.
  return { base: sitesBase, prefix: `/sites/${id}/`, rulesPrefix: `/sites/${withRules}/`, pid: child.pid };
}

// ---- nginx --------------------------------------------------------------------------------------
async function startNginx(prefix) {
  const port = await freePort();
  const dir = path.join(work, 'nginx');
  const www = path.join(dir, 'www');
  // The same files at the same URLs.
  for (const [p, c] of Object.entries(FILES)) {
    const file = path.join(www, prefix, p);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, c);
  }
  fs.mkdirSync(path.join(dir, 'tmp'), { recursive: true });
  const conf = path.join(dir, 'nginx.conf');
  fs.writeFileSync(
    conf,
    `${process.getuid?.() === 0 ? 'user root;\n' : ''}worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  include /etc/nginx/mime.types;
  default_type application/octet-stream;
  access_log off;
  sendfile on;
  tcp_nopush on;
  tcp_nodelay on;
  keepalive_timeout 75s;
  keepalive_requests 1000000;
  open_file_cache max=1000 inactive=60s;
  client_body_temp_path ${dir}/tmp/body;
  proxy_temp_path ${dir}/tmp/proxy;
  fastcgi_temp_path ${dir}/tmp/fastcgi;
  uwsgi_temp_path ${dir}/tmp/uwsgi;
  scgi_temp_path ${dir}/tmp/scgi;
  server {
    listen 127.0.0.1:${port};
    root ${www};
    index index.html;
  }
}
`,
  );
  const child = track(
    spawn('taskset', ['-c', SERVER_CPU, 'nginx', '-p', dir, '-c', conf], {
      stdio: ['ignore', 'ignore', 'inherit'],
    }),
  );
  const base = `http://127.0.0.1:${port}`;
  await waitFor(`${base}${prefix}`);
  return { base, pid: child.pid };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** wrk's figures for url, with the server's CPU µs per request when its pid is given. */
function measure(url, seconds = DURATION, pid = undefined) {
  const cpuBefore = pid ? cpuMs(pid) : 0;
  const r = wrk(url, { seconds, connections: CONNECTIONS, only2xx: true });
  const cpu = pid && r.requests ? ((cpuMs(pid) - cpuBefore) * 1000) / r.requests : Number.NaN;
  return { ...r, cpu };
}

// ---- Run ----------------------------------------------------------------------------------------
const sitehall = await startSiteHall();
const nginx = await startNginx(sitehall.prefix);
const floor = await startNodeFloor(sitehall.prefix, FILES, work);
/** The URL of target t on server s: the site with rules on SiteHall, the same bytes elsewhere. */
const urlOf = (s, t) =>
  s === sitehall
    ? `${s.base}${t.rules ? sitehall.rulesPrefix : sitehall.prefix}${t.path}`
    : `${s.base}${sitehall.prefix}${t.same ?? t.path}`;
for (const t of TARGETS) {
  const [a, b] = await Promise.all(
    [sitehall, nginx].map(async (s) => Buffer.from(await (await fetch(urlOf(s, t))).arrayBuffer())),
  );
  if (!a.equals(b)) throw new Error(`${t.label}: the two servers sent different bytes`);
}

console.log(
  `SiteHall serving benchmark — ${os.cpus()[0]?.model ?? 'cpu'} ×${os.cpus().length}, Node ${process.version}, ` +
    `servers on CPU ${SERVER_CPU}, wrk on CPU ${CLIENT_CPU}, ${CONNECTIONS} connections, ${DURATION} s × ${ROUNDS} rounds, load average ${os.loadavg()[0].toFixed(1)}`,
);
const results = [];
for (const t of TARGETS) {
  for (const s of [sitehall, nginx, floor]) measure(urlOf(s, t), 2); // warm-up
  const runs = { ours: [], nginx: [], floor: [] };
  // Alternate the servers so a noisy moment hurts all alike.
  for (let round = 0; round < ROUNDS; round++) {
    runs.ours.push(measure(urlOf(sitehall, t), DURATION, sitehall.pid));
    runs.nginx.push(measure(urlOf(nginx, t), DURATION, nginx.pid));
    runs.floor.push(measure(urlOf(floor, t), DURATION, floor.pid));
  }
  const best = (rs) => rs.reduce((a, b) => (b.rps > a.rps ? b : a));
  const cpus = (rs) => rs.map((r) => r.cpu);
  results.push({
    ...t,
    ours: best(runs.ours),
    nginx: best(runs.nginx),
    floor: best(runs.floor),
    // Round by round (the servers alternate within a round, so a busy moment falls on all three).
    cpu: { ours: median(cpus(runs.ours)), nginx: median(cpus(runs.nginx)), floor: median(cpus(runs.floor)) },
    cpuRatio: median(runs.ours.map((r, i) => r.cpu / runs.nginx[i].cpu)),
    floorRatio: median(runs.ours.map((r, i) => r.cpu / runs.floor[i].cpu)),
    p99s: runs.ours.map((r) => r.p99),
    load: os.loadavg()[0],
  });
}

console.log(
  `\nServer CPU per request (µs; median of ${ROUNDS} alternating rounds): what each answer costs, whatever else runs on the machine`,
);
console.log(
  `${'file'.padEnd(20)} ${pad('SiteHall', 9)} ${pad('nginx', 9)} ${pad('node:http', 10)} ${pad('SiteHall ÷ nginx', 17)} ${pad('÷ node:http', 12)}  target (load)`,
);
let failed = false;
for (const r of results) {
  const ok = r.cpuMax === null || r.cpuRatio <= r.cpuMax;
  failed ||= !ok;
  console.log(
    `${r.label.padEnd(20)} ${pad(r.cpu.ours.toFixed(1), 9)} ${pad(r.cpu.nginx.toFixed(1), 9)} ${pad(r.cpu.floor.toFixed(1), 10)} ${pad(`${r.cpuRatio.toFixed(2)}×`, 17)} ${pad(`${r.floorRatio.toFixed(2)}×`, 12)}  ${r.cpuMax === null ? 'none' : `≤${r.cpuMax.toFixed(1)}× nginx ${ok ? 'MET' : 'MISSED'}`} (${r.load.toFixed(1)})`,
  );
}

console.log(
  `\n${'file'.padEnd(20)} ${pad('SiteHall req/s', 15)} ${pad('p99 ms', 8)} ${pad('nginx req/s', 12)} ${pad('p99 ms', 8)} ${pad('ratio', 6)}  target (best round; SiteHall's p99 per round)`,
);
const floorLines = [];
for (const r of results) {
  const ratio = r.ours.rps / r.nginx.rps;
  const p99ok = r.p99 === null || r.ours.p99 <= r.p99;
  const ok = ratio >= r.ratio && p99ok;
  failed ||= !p99ok;
  console.log(
    `${r.label.padEnd(20)} ${pad(Math.round(r.ours.rps), 15)} ${pad(r.ours.p99.toFixed(2), 8)} ${pad(Math.round(r.nginx.rps), 12)} ${pad(r.nginx.p99.toFixed(2), 8)} ${pad(ratio.toFixed(2), 6)}  ≥${r.ratio}×${r.p99 ? `, p99 ≤${r.p99} ms` : ''} ${ok ? 'MET' : 'MISSED'} (${r.p99s.map((p) => p.toFixed(1)).join('/')})`,
  );
  floorLines.push(
    `${r.label.padEnd(20)} ${pad(Math.round(r.floor.rps), 15)} ${pad(r.floor.p99.toFixed(2), 8)} ${pad((r.floor.rps / r.nginx.rps).toFixed(2), 12)} ${pad((r.ours.rps / r.floor.rps).toFixed(2), 14)}`,
  );
}
console.log(`\nNode's ceiling: a bare node:http server answering the same URLs from memory`);
console.log(
  `${'file'.padEnd(20)} ${pad('node:http req/s', 15)} ${pad('p99 ms', 8)} ${pad('÷ nginx', 12)} ${pad('SiteHall ÷ it', 14)}`,
);
for (const line of floorLines) console.log(line);
console.log(
  `\nThroughput and p99 on a shared machine measure the machine (load average ${os.loadavg()[0].toFixed(1)} at the end); the exit code follows CPU per request and SiteHall's p99.`,
);
stopChildren();
fs.rmSync(work, { recursive: true, force: true });
process.exitCode = failed ? 1 : 0;
