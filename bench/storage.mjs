#!/usr/bin/env node
// Storage benchmark: SiteHall serving the same site from S3-compatible storage (s3rver) and from
// the local data folder, in the same run. Two built servers (server/dist, SQLite, their own temp
// DATA_DIR) get the same site uploaded and approved through the API; one has STORAGE=s3 against
// an s3rver child process. Both servers share CPU 0; wrk and s3rver run on CPU 1 (the object store
// stands for another machine, so its work is kept off the servers' core). For a hot 10 KB asset,
// a 1 MB file (both within the memory cache's per-file limit) and a 2 MB file (streamed from the
// store on every request): requests/s and p99 at 50 connections, and the S3/local ratio.
//   npm run bench:storage [-- --duration 10 --connections 50 --rounds 2]
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  CLIENT_CPU,
  pad,
  png,
  publishSite,
  requireTools,
  SERVER_CPU,
  siteText,
  startServer,
  stopChildren,
  track,
  wrk,
} from './lib.mjs';

const root = path.resolve(import.meta.dirname, '..');
const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '2' },
  },
});
const DURATION = Number(args.duration);
const CONNECTIONS = Number(args.connections);
const ROUNDS = Number(args.rounds);

requireTools(['wrk', 'taskset'], 'wrk util-linux');

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'sitehall-bench-storage-'));
process.on('SIGINT', () => process.exit(130));

// ---- The site ---------------------------------------------------------------------------------
const FILES = {
  'index.html':
    '<!doctype html><html lang="zh-CN"><head><meta charset="utf-8"><title>基准</title></head><body>基准站点</body></html>',
  'assets/app.css': siteText(10 * 1024, 7),
  'media/photo.png': png(1024 * 1024),
  'media/poster.png': png(2 * 1024 * 1024),
};
const TARGETS = [
  { label: '10 KB asset (hot)', path: 'assets/app.css', ratio: 0.8 },
  { label: '1 MB file (hot)', path: 'media/photo.png', ratio: null },
  { label: '2 MB file (streamed)', path: 'media/poster.png', ratio: null },
];

// ---- s3rver (the test suite's launcher: server/test/support/s3rver-main.mjs) ------------------
async function startS3rver() {
  const dir = path.join(work, 's3rver');
  fs.mkdirSync(dir);
  const bucket = 'sitehall-bench';
  const child = track(
    spawn(
      'taskset',
      [
        '-c',
        CLIENT_CPU,
        process.execPath,
        '--openssl-legacy-provider',
        path.join(root, 'server/test/support/s3rver-main.mjs'),
        dir,
        bucket,
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    ),
  );
  const port = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
      const m = /PORT (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) => reject(new Error(`s3rver exited (${code})`)));
  });
  return {
    STORAGE: 's3',
    S3_ENDPOINT: `http://127.0.0.1:${port}`,
    S3_BUCKET: bucket,
    S3_ACCESS_KEY_ID: 'S3RVER',
    S3_SECRET_ACCESS_KEY: 'S3RVER',
    S3_FORCE_PATH_STYLE: 'true',
  };
}

// ---- SiteHall -----------------------------------------------------------------------------------
async function startSiteHall(name, extraEnv) {
  const { base, sitesBase } = await startServer({ DATA_DIR: path.join(work, name), ...extraEnv });
  const id = await publishSite(base, FILES, '存储基准站点');
  // Live sites are served on the sites port; the app port only redirects /sites there (measuring
  // it measured redirects: 30,000 "1 MB" answers a second, until 2026-11-30).
  return { name, base: sitesBase, prefix: `/sites/${id}/` };
}

const measure = (url, seconds = DURATION) => wrk(url, { seconds, connections: CONNECTIONS, only2xx: true });

// ---- Run ----------------------------------------------------------------------------------------
const s3Env = await startS3rver();
const local = await startSiteHall('local', {});
const s3 = await startSiteHall('s3', s3Env);
for (const t of TARGETS) {
  const [a, b] = await Promise.all(
    [local, s3].map(async (s) =>
      Buffer.from(await (await fetch(`${s.base}${s.prefix}${t.path}`, { redirect: 'error' })).arrayBuffer()),
    ),
  );
  if (!a.equals(b) || !a.equals(Buffer.from(FILES[t.path])))
    throw new Error(`${t.label}: the servers sent different bytes`);
}

console.log(
  `SiteHall storage benchmark — ${os.cpus()[0]?.model ?? 'cpu'} ×${os.cpus().length}, Node ${process.version}, ` +
    `servers on CPU ${SERVER_CPU}, wrk and s3rver on CPU ${CLIENT_CPU}, ${CONNECTIONS} connections, ` +
    `${DURATION} s × ${ROUNDS} rounds, load average ${os.loadavg()[0].toFixed(1)}`,
);
const results = [];
for (const t of TARGETS) {
  for (const s of [local, s3]) measure(`${s.base}${s.prefix}${t.path}`, 2); // warm-up: fills the memory cache
  const runs = { local: [], s3: [] };
  // Alternate the servers so a noisy moment hurts both alike; keep each one's best round.
  for (let round = 0; round < ROUNDS; round++) {
    runs.local.push(measure(`${local.base}${local.prefix}${t.path}`));
    runs.s3.push(measure(`${s3.base}${s3.prefix}${t.path}`));
  }
  const best = (rs) => rs.reduce((a, b) => (b.rps > a.rps ? b : a));
  results.push({ ...t, local: best(runs.local), s3: best(runs.s3) });
}

console.log(
  `\n${'file'.padEnd(22)} ${pad('local req/s', 12)} ${pad('p99 ms', 8)} ${pad('S3 req/s', 10)} ${pad('p99 ms', 8)} ${pad('S3/local', 9)}  target`,
);
let failed = false;
for (const r of results) {
  const ratio = r.s3.rps / r.local.rps;
  const ok = r.ratio === null || ratio >= r.ratio;
  failed ||= !ok;
  console.log(
    `${r.label.padEnd(22)} ${pad(Math.round(r.local.rps), 12)} ${pad(r.local.p99.toFixed(2), 8)} ${pad(Math.round(r.s3.rps), 10)} ${pad(r.s3.p99.toFixed(2), 8)} ${pad(ratio.toFixed(2), 9)}  ${r.ratio === null ? '(measured)' : `≥${r.ratio}× ${ok ? 'met' : 'MISSED'}`}`,
  );
}
stopChildren();
fs.rmSync(work, { recursive: true, force: true });
process.exitCode = failed ? 1 : 0;
