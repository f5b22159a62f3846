#!/usr/bin/env node
// Fairness benchmark: two hostile accounts upload heavy zips over and over (each a few KB that
// unpack into megabytes the content check must read: `url(` stylesheets and scripts of char codes),
// two uploads in flight each, while a third account uploads a one-page site. The victim's upload
// latency with the attackers running is printed against its latency with nobody else uploading,
// in the same run. Target (docs/benchmarks.md "Fairness"): under attack, the victim's slowest
// upload takes at most 2 s more than its median alone.
//   npm run bench:fairness                 5 victim uploads in each phase
//   node bench/fairness.mjs --uploads 10
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { apiClient, BENCH_PASSWORD, makeZip, pad, startServer, stopChildren } from './lib.mjs';

const argv = process.argv.slice(2);
const uploadsAt = argv.indexOf('--uploads');
const UPLOADS = uploadsAt >= 0 ? Number(argv[uploadsAt + 1]) : 5;
const TARGET_EXTRA_MS = 2_000;
const MB = 1024 * 1024;

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'sitehall-bench-fairness-'));
let attacking = true;
try {
  // Every core the machine lends: the point is how the server shares its workers, not one core's speed.
  const cpus = `0-${os.availableParallelism() - 1}`;
  const { base } = await startServer({ DATA_DIR: path.join(work, 'data'), RENDER_WORKER: 'off' }, { cpus });
  const api = apiClient(base);
  const signIn = async (username, password) =>
    (await api('POST', '/api/auth/login', { json: { username, password } })).token;
  const admin = await signIn('admin', BENCH_PASSWORD);
  await api('PUT', '/api/admin/config', {
    token: admin,
    json: { max_uploads_per_hour: 10_000, max_user_storage_bytes: 100 * 1024 * MB },
  });
  const account = async (username) => {
    const { password } = await api('POST', '/api/auth/register', { token: admin, json: { username } });
    return signIn(username, password);
  };
  const [victim, attacker1, attacker2] = await Promise.all(['victim', 'attacker1', 'attacker2'].map(account));

  // 24 files of 2 MB (the content check's read limit per file): about 2 s of scanning each.
  const entries = {};
  for (let i = 0; i < 12; i++) {
    entries[`css/${i}.css`] = 'url('.repeat(MB / 2);
    entries[`js/${i}.js`] = `String.fromCharCode(${'1,'.repeat(MB)}1);`;
  }
  entries['index.html'] = '<!doctype html><title>heavy</title>';
  const heavyZip = await makeZip(entries);
  const page = '<!doctype html><meta charset="utf-8"><title>我的主页</title><h1>你好</h1>';

  const upload = async (token, name, file, fileName) => {
    const form = new FormData();
    form.append('project_name', name);
    form.append('files', new Blob([file]), fileName);
    const started = performance.now();
    await api('POST', '/api/projects/upload', { token, body: form });
    return performance.now() - started;
  };
  const victimUploads = async (label) => {
    const times = [];
    for (let i = 0; i < UPLOADS; i++) times.push(await upload(victim, `${label} ${i}`, page, 'index.html'));
    return times;
  };

  // Warm up (the workers' first start), then the victim alone.
  await upload(victim, '预热', page, 'index.html');
  const alone = await victimUploads('独自');

  const attackerUploads = [0];
  const attackerErrors = [];
  const attack = async (token, lane) => {
    for (let i = 0; attacking; i++) {
      await upload(token, `heavy ${lane} ${i}`, heavyZip, 'site.zip');
      attackerUploads[0]++;
    }
  };
  const attackers = [attacker1, attacker1, attacker2, attacker2].map((token, i) =>
    attack(token, i).catch((err) => {
      if (attacking) attackerErrors.push(err);
    }),
  );
  // Let the attackers' first uploads reach the content check before the victim starts.
  await new Promise((r) => setTimeout(r, 3_000));
  const attacked = await victimUploads('受攻击');
  attacking = false;
  // An attacker refused (a limit, a changed API) would leave the victim alone: no measure at all.
  if (attackerErrors.length > 0) throw new Error(`an attacker's upload failed: ${attackerErrors[0].message}`);

  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const fmt = (ms) => `${pad((ms / 1000).toFixed(2), 6)} s`;
  console.log(
    `heavy zip: ${(heavyZip.length / 1024).toFixed(1)} KB holding ${Object.keys(entries).length} files`,
  );
  console.log(`server cores: ${cpus}; attacker uploads finished meanwhile: ${attackerUploads[0]}`);
  console.log(`victim alone:        median ${fmt(median(alone))}  max ${fmt(Math.max(...alone))}`);
  console.log(`victim under attack: median ${fmt(median(attacked))}  max ${fmt(Math.max(...attacked))}`);
  const extra = Math.max(...attacked) - median(alone);
  console.log(
    `target: slowest upload under attack at most ${TARGET_EXTRA_MS / 1000} s over the median alone: ` +
      `${(extra / 1000).toFixed(2)} s ${extra <= TARGET_EXTRA_MS ? 'MET' : 'MISSED'}`,
  );
  stopChildren();
  await Promise.allSettled(attackers);
} finally {
  attacking = false;
  stopChildren();
  fs.rmSync(work, { recursive: true, force: true });
}
