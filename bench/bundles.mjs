#!/usr/bin/env node
// Large library bundles (issue 33 part 3): the server's CPU for a new upload of well-known libraries
// against the CPU `7zz x` needs to extract the same zip, in the same run.
//   npm run bench:bundles                      the large packages of node_modules (monaco-editor's
//                                              min/ when it is installed, else swagger-ui, antd,
//                                              react-dom, bootstrap, reveal.js, jquery, lodash)
//   npm run bench:bundles -- --dir PATH        a library folder of your own (e.g. monaco-editor's
//                                              min/ from `npm pack monaco-editor`)
//   --rounds N                                 measured uploads (default 3)
//
// The built server (server/dist, SQLite, render worker off) is pinned to one core. Account A
// uploads the libraries first (nothing known: every file is parsed); the server is restarted (its
// in-memory traces gone); then accounts B1…BN each upload a new site holding the same library files
// under other folders. Each of those uploads' server CPU (all threads, /proc) is compared with
// `7zz x` of the same zip (user + system), measured alternately with it. Target: ≤ 2×.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { apiClient, BENCH_PASSWORD, cpuMs, requireTools, startServer } from './lib.mjs';

const root = path.resolve(import.meta.dirname, '..');
const { values: args } = parseArgs({
  options: { dir: { type: 'string' }, rounds: { type: 'string', default: '3' } },
});
const ROUNDS = Number(args.rounds);
const TARGET = 2;
const sevenZip = ['/usr/bin/7zz', '/usr/bin/7z'].find((p) => fs.existsSync(p));
if (!sevenZip) {
  console.error('7zz is needed as the reference: apt-get install -y 7zip');
  process.exit(1);
}
requireTools(['taskset'], 'util-linux');
const MB = 1024 * 1024;

/** The libraries: [name, folder, which files] (no source maps: a site's deploy rarely has them). */
function libraries() {
  if (args.dir) return [[path.basename(path.resolve(args.dir)), path.resolve(args.dir), () => true]];
  const nm = path.join(root, 'node_modules');
  const monaco = path.join(nm, 'monaco-editor/min');
  if (fs.existsSync(monaco)) return [['monaco-editor', monaco, () => true]];
  const web = (f) => /\.(js|css|html)$/.test(f) && !f.endsWith('.d.ts');
  return [
    ['swagger-ui', path.join(nm, 'swagger-ui-dist'), web],
    ['antd', path.join(nm, 'antd/dist'), (f) => /^antd(\.min)?\.(js|css)$/.test(path.basename(f))],
    ['react-dom', path.join(nm, 'react-dom/cjs'), web],
    ['bootstrap', path.join(nm, 'bootstrap/dist'), web],
    ['reveal.js', path.join(nm, 'reveal.js/dist'), web],
    ['jquery', path.join(nm, 'jquery/dist'), web],
    ['lodash', path.join(nm, 'lodash'), (f) => /^[^/]+\.js$/.test(f)],
  ].filter(([, dir]) => fs.existsSync(dir));
}

function filesOf(dir, keep) {
  const out = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.isFile() && keep(path.relative(dir, full))) out.push(path.relative(dir, full));
    }
  };
  walk(dir);
  return out;
}

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'sitehall-bench-bundles-'));
process.on('exit', () => fs.rmSync(work, { recursive: true, force: true }));

/** A site of the libraries under `prefix`, zipped by 7zz (deflate, as people's zip tools make them). */
function makeSite(name, prefix, libs) {
  const dir = path.join(work, name);
  let bytes = 0;
  let count = 0;
  for (const [lib, from, keep] of libs) {
    for (const f of filesOf(from, keep)) {
      const to = path.join(dir, prefix, lib, f);
      fs.mkdirSync(path.dirname(to), { recursive: true });
      fs.copyFileSync(path.join(from, f), to);
      bytes += fs.statSync(to).size;
      count++;
    }
  }
  const links = libs.map(([lib]) => `<li>${lib}: ${prefix}/${lib}/</li>`).join('');
  fs.writeFileSync(path.join(dir, 'index.html'), `<!doctype html><title>${name}</title><ul>${links}</ul>`);
  const zip = path.join(work, `${name}.zip`);
  execFileSync(sevenZip, ['a', '-tzip', '-mx=5', zip, '.'], { cwd: dir, stdio: 'ignore' });
  fs.rmSync(dir, { recursive: true, force: true });
  return { zip, bytes: bytes + 100, count: count + 1, zipBytes: fs.statSync(zip).size };
}

/** 7zz x of the zip: user + system CPU (ms), GNU time's figures. */
function sevenZipCpu(zip) {
  const out = fs.mkdtempSync(path.join(work, 'x-'));
  const r = spawnSync('/usr/bin/time', ['-f', '%U %S', sevenZip, 'x', '-y', `-o${out}`, zip], {
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  fs.rmSync(out, { recursive: true, force: true });
  const m = /([\d.]+) ([\d.]+)\s*$/.exec(r.stderr);
  if (r.status !== 0 || !m) throw new Error(`7zz failed: ${r.stderr}`);
  return (Number(m[1]) + Number(m[2])) * 1000;
}

async function upload(base, token, zip, name) {
  const form = new FormData();
  form.append('project_name', name);
  form.append('upload_type', 'zip');
  form.append('files', new Blob([fs.readFileSync(zip)]), 'site.zip');
  const send = () =>
    fetch(`${base}/api/projects/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
  // A kept-alive connection the server closed as it was reused (seen at a load of 20): sent again.
  const res = await send().catch((err) => {
    if (err?.cause?.code !== 'UND_ERR_SOCKET') throw err;
    return send();
  });
  if (res.status !== 201) throw new Error(`upload answered ${res.status}: ${await res.text()}`);
  return (await res.json()).data.project.id;
}

/** Server CPU (ms, all threads) of one upload. */
async function measuredUpload(server, token, zip, name) {
  const before = cpuMs(server.child.pid);
  await upload(server.base, token, zip, name);
  return cpuMs(server.child.pid) - before;
}

async function adminSession(base) {
  const api = apiClient(base);
  const { token } = await api('POST', '/api/auth/login', {
    json: { username: 'admin', password: BENCH_PASSWORD },
  });
  return { api, token };
}

async function newAccount(api, adminToken, username) {
  const { password } = await api('POST', '/api/auth/register', {
    token: adminToken,
    json: { username, role: 'user' },
  });
  return (await api('POST', '/api/auth/login', { json: { username, password } })).token;
}

const libs = libraries();
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
console.log(
  `load average ${load()}; ${os.cpus().length} CPUs; libraries: ${libs.map(([n]) => n).join(', ')}`,
);
const first = makeSite('first', 'lib', libs);
const later = Array.from({ length: ROUNDS }, (_, i) => makeSite(`later${i}`, `static/v${i}/vendor`, libs));
console.log(
  `site: ${first.count} files, ${(first.bytes / MB).toFixed(1)} MB (zip ${(first.zipBytes / MB).toFixed(1)} MB)`,
);

const env = { DATA_DIR: path.join(work, 'data'), RENDER_WORKER: 'off', WEB_DIST: path.join(work, 'none') };
let server = await startServer(env);
let { api, token } = await adminSession(server.base);
await api('PUT', '/api/admin/config', {
  token,
  json: { max_file_bytes: 1024 * MB, max_upload_bytes: 1024 * MB },
});
const a = await newAccount(api, token, 'bench_a');
const coldCpu = await measuredUpload(server, a, first.zip, '库 A');
const coldRef = sevenZipCpu(first.zip);
console.log(
  `first upload anywhere (every file parsed): server ${coldCpu.toFixed(0)} ms CPU vs 7zz x ${coldRef.toFixed(0)} ms → ${(coldCpu / coldRef).toFixed(2)}× (no target)`,
);
// A restart: what the process had in memory is gone, the stored traces stay.
server.child.kill('SIGTERM');
await new Promise((r) => server.child.once('exit', r));
server = await startServer(env);
({ api, token } = await adminSession(server.base));

const ours = [];
const refs = [];
for (let i = 0; i < ROUNDS; i++) {
  const b = await newAccount(api, token, `bench_b${i}`);
  ours.push(await measuredUpload(server, b, later[i].zip, `库 B${i}`));
  refs.push(sevenZipCpu(later[i].zip));
}
server.child.kill('SIGTERM');
await new Promise((r) => server.child.once('exit', r));

const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const perMb = (ms) => (ms / (later[0].bytes / MB)).toFixed(1);
const ratio = median(ours) / median(refs);
console.log(
  `new upload of the same libraries by other accounts, other folders (after a restart): server ${median(ours).toFixed(0)} ms CPU (${perMb(median(ours))} ms/MB)` +
    ` vs 7zz x ${median(refs).toFixed(0)} ms (${perMb(median(refs))} ms/MB) → ${ratio.toFixed(2)}× ${ratio <= TARGET ? 'MET' : 'MISSED'} (target ≤${TARGET}×)` +
    ` [rounds: server ${ours.map((c) => c.toFixed(0)).join('/')}, 7zz ${refs.map((c) => c.toFixed(0)).join('/')}; load now ${load()}]`,
);
process.exitCode = ratio <= TARGET ? 0 : 1;
