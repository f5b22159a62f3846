#!/usr/bin/env node
// Serving benchmark: SiteHall's /sites against nginx serving the same files in the same run.
// Our built server (server/dist) runs on a temporary DATA_DIR with a project uploaded and approved
// through the API; Debian's nginx (one worker, its own nginx.conf, pid and logs in a temp dir) runs
// as a non-daemon child. Both servers share one core, wrk runs on the other (taskset), all over
// loopback. For an index.html, a 10 KB asset and a 1 MB file: requests/s and p99 latency at 50
// connections, and our ratio to nginx against the targets.
//   npm run bench:serve [-- --duration 10 --connections 50 --rounds 2 --only REGEX]
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
    rounds: { type: 'string', default: '2' },
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
const ALL_TARGETS = [
  { label: 'index.html (5 KB)', path: '', ratio: 0.7, p99: 5 },
  { label: '10 KB asset', path: 'assets/app.css', ratio: 0.7, p99: 5 },
  { label: '1 MB file', path: 'media/photo.png', ratio: 0.5, p99: null },
];
const TARGETS = args.only ? ALL_TARGETS.filter((t) => new RegExp(args.only, 'i').test(t.label)) : ALL_TARGETS;

// ---- SiteHall -----------------------------------------------------------------------------------
async function startSiteHall() {
  const { base, sitesBase, child } = await startServer({ DATA_DIR: path.join(work, 'data') });
  const id = await publishSite(base, FILES, '基准测试站点');
  // Sites are served on the sites port; the app port's /sites/{id}/ is a redirect to it.
  return { base: sitesBase, prefix: `/sites/${id}/`, pid: child.pid };
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
for (const t of TARGETS) {
  const [a, b] = await Promise.all(
    [sitehall, nginx].map(async (s) =>
      Buffer.from(await (await fetch(`${s.base}${sitehall.prefix}${t.path}`)).arrayBuffer()),
    ),
  );
  if (!a.equals(b)) throw new Error(`${t.label}: the two servers sent different bytes`);
}

console.log(
  `SiteHall serving benchmark — ${os.cpus()[0]?.model ?? 'cpu'} ×${os.cpus().length}, Node ${process.version}, ` +
    `servers on CPU ${SERVER_CPU}, wrk on CPU ${CLIENT_CPU}, ${CONNECTIONS} connections, ${DURATION} s × ${ROUNDS} rounds, load average ${os.loadavg()[0].toFixed(1)}`,
);
const results = [];
for (const t of TARGETS) {
  for (const s of [sitehall, nginx, floor]) measure(`${s.base}${sitehall.prefix}${t.path}`, 2); // warm-up
  const runs = { ours: [], nginx: [], floor: [] };
  // Alternate the servers so a noisy moment hurts all alike; keep each one's best round.
  for (let round = 0; round < ROUNDS; round++) {
    runs.ours.push(measure(`${sitehall.base}${sitehall.prefix}${t.path}`, DURATION, sitehall.pid));
    runs.nginx.push(measure(`${nginx.base}${sitehall.prefix}${t.path}`, DURATION, nginx.pid));
    runs.floor.push(measure(`${floor.base}${sitehall.prefix}${t.path}`, DURATION, floor.pid));
  }
  const best = (rs) => rs.reduce((a, b) => (b.rps > a.rps ? b : a));
  const leastCpu = (rs) => Math.min(...rs.map((r) => r.cpu));
  results.push({
    ...t,
    ours: best(runs.ours),
    nginx: best(runs.nginx),
    floor: best(runs.floor),
    cpu: { ours: leastCpu(runs.ours), nginx: leastCpu(runs.nginx), floor: leastCpu(runs.floor) },
  });
}

console.log(
  `\n${'file'.padEnd(20)} ${pad('SiteHall req/s', 15)} ${pad('p99 ms', 8)} ${pad('nginx req/s', 12)} ${pad('p99 ms', 8)} ${pad('ratio', 6)}  target`,
);
const floorLines = [];
let failed = false;
for (const r of results) {
  const ratio = r.ours.rps / r.nginx.rps;
  const ok = ratio >= r.ratio && (r.p99 === null || r.ours.p99 <= r.p99);
  failed ||= !ok;
  console.log(
    `${r.label.padEnd(20)} ${pad(Math.round(r.ours.rps), 15)} ${pad(r.ours.p99.toFixed(2), 8)} ${pad(Math.round(r.nginx.rps), 12)} ${pad(r.nginx.p99.toFixed(2), 8)} ${pad(ratio.toFixed(2), 6)}  ≥${r.ratio}×${r.p99 ? `, p99 ≤${r.p99} ms` : ''} ${ok ? 'met' : 'MISSED'}`,
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
  `\nServer CPU per request (µs; least of the rounds): what each answer costs, whatever else runs on the machine`,
);
console.log(
  `${'file'.padEnd(20)} ${pad('SiteHall', 9)} ${pad('nginx', 9)} ${pad('node:http', 10)} ${pad('nginx ÷ SiteHall', 17)}`,
);
for (const r of results) {
  console.log(
    `${r.label.padEnd(20)} ${pad(r.cpu.ours.toFixed(1), 9)} ${pad(r.cpu.nginx.toFixed(1), 9)} ${pad(r.cpu.floor.toFixed(1), 10)} ${pad((r.cpu.nginx / r.cpu.ours).toFixed(2), 17)}`,
  );
}
stopChildren();
fs.rmSync(work, { recursive: true, force: true });
process.exitCode = failed ? 1 : 0;
