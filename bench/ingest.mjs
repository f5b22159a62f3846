#!/usr/bin/env node
// Ingest benchmark: SiteHall's ingest of a many-file zip and of a few large files, against `7zz x`
// of the same archive in the same run, with peak RSS and the event loop's p99 delay during ingest;
// then a 100 MB upload over HTTP against `cat` of the same file. Prints ratios.
//   npm run bench:ingest
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';

const root = path.resolve(import.meta.dirname, '..');
const { ingest } = await import(path.join(root, 'server/dist/ingest/index.js'));
const { DEFAULT_LIMITS } = await import(path.join(root, 'packages/contracts/dist/index.js'));
const sevenZip = ['/usr/bin/7zz', '/usr/bin/7z'].find((p) => fs.existsSync(p));
if (!sevenZip) {
  console.error('7zz is needed as the reference: apt-get install -y 7zip');
  process.exit(1);
}
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'sitehall-bench-'));
const mb = (n) => (n / 1024 / 1024).toFixed(1);

/** Text that compresses about as well as real site files (~3:1). */
function siteLikeText(bytes) {
  const words = [
    '<div class="card">',
    '</div>',
    'function',
    'return',
    'const',
    'color:',
    '#333;',
    '站点',
    '展厅',
    '项目',
    'margin: 0 auto;',
  ];
  let s = '';
  while (s.length < bytes)
    s += `${words[Math.floor(Math.random() * words.length)]} ${randomBytes(3).toString('hex')} `;
  return s.slice(0, bytes);
}

function makeTree(dir, files) {
  for (const [rel, content] of files) {
    const p = path.join(dir, rel);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, content);
  }
}

async function measureIngest(label, archive, extraLimits = {}) {
  const runs = [];
  for (let i = 0; i < 3; i++) {
    const workDir = fs.mkdtempSync(path.join(work, 'ingest-'));
    const h = monitorEventLoopDelay({ resolution: 5 });
    h.enable();
    let peak = process.memoryUsage().rss;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
    const t0 = performance.now();
    const result = await ingest({
      files: [{ name: path.basename(archive), tempFile: archive, size: fs.statSync(archive).size }],
      uploadType: 'auto',
      limits: { ...DEFAULT_LIMITS, ...extraLimits },
      workDir,
    });
    const ms = performance.now() - t0;
    clearInterval(sampler);
    h.disable();
    runs.push({ ms, peak, p99: h.percentile(99) / 1e6, files: result.files.length });
    fs.rmSync(workDir, { recursive: true, force: true });
  }
  const refs = [];
  for (let i = 0; i < 3; i++) {
    const out = fs.mkdtempSync(path.join(work, 'ref-'));
    const t0 = performance.now();
    execFileSync(sevenZip, ['x', '-y', `-o${out}`, archive], { stdio: 'ignore' });
    refs.push(performance.now() - t0);
    fs.rmSync(out, { recursive: true, force: true });
  }
  const best = runs.reduce((a, b) => (a.ms < b.ms ? a : b));
  const ref = Math.min(...refs);
  console.log(
    `${label}: ${best.files} files, ours ${best.ms.toFixed(0)} ms vs 7zz x ${ref.toFixed(0)} ms → ${(best.ms / ref).toFixed(2)}× 7zz (target ≤1.2×); ` +
      `peak RSS ${mb(Math.max(...runs.map((r) => r.peak)))} MB (target ≤150); event-loop p99 ${Math.max(...runs.map((r) => r.p99)).toFixed(1)} ms (target ≤50)`,
  );
}

// 1. 5,000 files, ~60 MB uncompressed, as a zip made by 7zz (deflate).
const manyDir = path.join(work, 'many');
// Written one at a time so the benchmark's own memory doesn't count against the ingest's RSS.
for (let i = 0; i < 5000; i++) {
  makeTree(manyDir, [[`site/pages/p${Math.floor(i / 100)}/page${i}.html`, siteLikeText(12_000)]]);
}
const manyZip = path.join(work, 'many.zip');
execFileSync(sevenZip, ['a', '-tzip', '-mx=5', manyZip, './site'], { cwd: manyDir, stdio: 'ignore' });
console.log(`many-file zip: ${mb(fs.statSync(manyZip).size)} MB compressed`);
await measureIngest('5,000-file zip', manyZip);

// 2. A few large files (3 × 40 MB, incompressible media).
const bigDir = path.join(work, 'big');
fs.mkdirSync(path.join(bigDir, 'site'), { recursive: true });
for (let i = 0; i < 3; i++) {
  const mp4 = Buffer.concat([
    Buffer.from([0, 0, 0, 0x18, 0x66, 0x74, 0x79, 0x70, 0x69, 0x73, 0x6f, 0x6d]),
    randomBytes(40 * 1024 * 1024),
  ]);
  fs.writeFileSync(path.join(bigDir, 'site', `video${i}.mp4`), mp4);
}
fs.writeFileSync(path.join(bigDir, 'site', 'index.html'), '<!doctype html><title>big</title>');
const bigZip = path.join(work, 'big.zip');
execFileSync(sevenZip, ['a', '-tzip', '-mx=1', bigZip, './site'], { cwd: bigDir, stdio: 'ignore' });
await measureIngest('3 × 40 MB zip', bigZip, { maxFileBytes: 200 * 1024 * 1024 });

// 3. A 100 MB upload over HTTP through the real server, against cat of the same file.
const { buildApp } = await import(path.join(root, 'server/dist/app.js'));
const { loadConfig } = await import(path.join(root, 'server/dist/config.js'));
const dataDir = path.join(work, 'data');
const config = loadConfig({
  DATA_DIR: dataDir,
  ADMIN_PASSWORD: 'bench-password-1',
  LOG_LEVEL: 'silent',
  WEB_DIST: path.join(work, 'none'),
});
const { app, ctx } = await buildApp(config, { logger: false });
await ctx.services.accounts.ensureFirstAdmin('bench-password-1');
await app.listen({ port: 0, host: '127.0.0.1' });
const port = app.server.address().port;
const login = await fetch(`http://127.0.0.1:${port}/api/auth/login`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ username: 'admin', password: 'bench-password-1' }),
});
const token = (await login.json()).data.token;
const bigFile = path.join(work, 'upload.txt');
fs.writeFileSync(bigFile, siteLikeText(99 * 1024 * 1024));
const size = fs.statSync(bigFile).size;

function postFile() {
  return new Promise((resolve, reject) => {
    const boundary = `----bench${randomBytes(8).toString('hex')}`;
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="project_name"\r\n\r\n基准测试\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="upload.txt"\r\nContent-Type: text/plain\r\n\r\n`,
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    const req = http.request({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path: '/api/projects/upload',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': head.length + size + tail.length,
      },
    });
    req.on('response', (res) => {
      let answer = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (answer += d));
      res.on('end', () =>
        res.statusCode === 201
          ? resolve()
          : reject(new Error(`upload answered ${res.statusCode}: ${answer}`)),
      );
    });
    req.on('error', reject);
    req.write(head);
    const rs = fs.createReadStream(bigFile, { highWaterMark: 1024 * 1024 });
    rs.pipe(req, { end: false });
    rs.on('end', () => req.end(tail));
  });
}
const rssBefore = process.memoryUsage().rss;
let rssPeak = rssBefore;
const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 10);
const t0 = performance.now();
await postFile();
const uploadMs = performance.now() - t0;
clearInterval(sampler);
const c0 = performance.now();
const cat = spawnSync('sh', ['-c', `cat "${bigFile}" > "${path.join(work, 'cat-copy')}"`]);
const catMs = performance.now() - c0;
if (cat.status !== 0) throw new Error('cat failed');
const ours = size / 1024 / 1024 / (uploadMs / 1000);
const ref = size / 1024 / 1024 / (catMs / 1000);
console.log(
  `100 MB upload: ${ours.toFixed(0)} MB/s (target ≥300) vs cat ${ref.toFixed(0)} MB/s → ${(ours / ref).toFixed(2)}× cat; ` +
    `RSS growth ${mb(rssPeak - rssBefore)} MB (target ≤50; client and server share this process)`,
);
await app.close();
fs.rmSync(work, { recursive: true, force: true });
