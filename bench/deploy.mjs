#!/usr/bin/env node
// Deploy benchmark: redeploy a 5,000-file site with one file changed, in the same run, as a digest
// deploy with the `sitehall` CLI (a process of its own: hash every file, send the manifest, upload
// the one changed file, finish) and as a full zip upload of the same site (the zip made
// beforehand, so only the upload and the server's ingest are timed: the zip side's best case).
// Target (docs/benchmarks.md "Digest deploys"): the digest deploy takes at most 0.2× the zip's time.
//   npm run bench:deploy                 3 rounds
//   node bench/deploy.mjs --rounds 5
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import {
  apiClient,
  BENCH_PASSWORD,
  CLIENT_CPU,
  makeZip,
  pad,
  siteText,
  startServer,
  stopChildren,
} from './lib.mjs';

const root = path.resolve(import.meta.dirname, '..');
const argv = process.argv.slice(2);
const roundsAt = argv.indexOf('--rounds');
const ROUNDS = roundsAt >= 0 ? Number(argv[roundsAt + 1]) : 3;
const FILES = 5_000;
const FOLDERS = 10;

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'sitehall-bench-deploy-'));
try {
  // No render worker: each new version would be rendered in the background on the server's core,
  // slowing whichever deploy comes next (bench:render measures rendering).
  const { base } = await startServer({ DATA_DIR: path.join(work, 'data'), RENDER_WORKER: 'off' });
  const api = apiClient(base);
  const { token: session } = await api('POST', '/api/auth/login', {
    json: { username: 'admin', password: BENCH_PASSWORD },
  });
  const { token } = await api('POST', '/api/auth/tokens', { token: session, json: { name: 'bench' } });

  // 5,000 small text files (about 2 KB each) in ten folders, and an index page.
  const site = path.join(work, 'site');
  const files = { 'index.html': '<!doctype html><title>bench</title><h1>bench</h1>' };
  for (let i = 1; i < FILES; i++) {
    const ext = ['html', 'css', 'js'][i % 3];
    files[`p${i % FOLDERS}/f${i}.${ext}`] = await siteText(2048, i);
  }
  for (const [p, c] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(site, p)), { recursive: true });
    fs.writeFileSync(path.join(site, p), c);
  }
  const cli = (args) => {
    const started = performance.now();
    const r = spawnSync(
      'taskset',
      ['-c', CLIENT_CPU, process.execPath, path.join(root, 'packages/cli/bin/sitehall.js'), ...args],
      { env: { ...process.env, SITEHALL_URL: base, SITEHALL_TOKEN: token }, encoding: 'utf8' },
    );
    if (r.status !== 0) throw new Error(`sitehall ${args.join(' ')}: ${r.stderr}`);
    return { ms: performance.now() - started, out: r.stdout + r.stderr };
  };
  const first = cli(['deploy', site, '--name', '基准-摘要部署']);
  const digestId = Number(/项目 (\d+)/.exec(first.out)[1]);
  console.log(`first digest deploy (uploads all ${FILES} files): ${first.ms.toFixed(0)} ms`);
  const form = (zip, name) => {
    const fd = new FormData();
    if (name) fd.append('project_name', name);
    fd.append('files', new Blob([zip]), 'site.zip');
    return fd;
  };
  const { project } = await api('POST', '/api/projects/upload', {
    token: session,
    body: form(await makeZip(files), '基准-压缩包'),
  });

  const digest = [];
  const zipped = [];
  for (let round = 1; round <= ROUNDS; round++) {
    const changed = `p1/f1.css`;
    const content = `${files[changed]}\n/* round ${round} */`;
    fs.writeFileSync(path.join(site, changed), content);
    const zip = await makeZip({ ...files, [changed]: content });

    const d = cli(['deploy', site, '--project', String(digestId)]);
    if (!d.out.includes('需要上传 1 个')) throw new Error(`expected one upload:\n${d.out}`);
    digest.push(d.ms);

    const started = performance.now();
    await api('PUT', `/api/projects/${project.id}`, { token: session, body: form(zip) });
    zipped.push(performance.now() - started);
    const cached = /哈希缓存：(\d+) 个文件未改动/.exec(d.out)?.[1] ?? '0';
    console.log(
      `round ${round}: digest ${pad(d.ms.toFixed(0), 6)} ms (${cached} hashes from the CLI cache)   ` +
        `zip ${pad(zipped.at(-1).toFixed(0), 6)} ms`,
    );
  }
  const best = (xs) => Math.min(...xs);
  const ratio = best(digest) / best(zipped);
  console.log(
    `\nredeploy of ${FILES} files, one changed (best of ${ROUNDS}): digest ${best(digest).toFixed(0)} ms, ` +
      `zip ${best(zipped).toFixed(0)} ms, ratio ${ratio.toFixed(2)} (target ≤ 0.20) ${ratio <= 0.2 ? 'PASS' : 'FAIL'}`,
  );
  process.exitCode = ratio <= 0.2 ? 0 : 1;
} finally {
  stopChildren();
  fs.rmSync(work, { recursive: true, force: true });
}
