#!/usr/bin/env node
// Deploy benchmark (docs/benchmarks.md "Digest deploys"), everything against a zip upload of the
// same site measured in the same run (the zip made beforehand, so only the upload and the
// server's ingest are timed: the zip side's best case). The CLI runs as a process of its own
// (hash every file, send the manifest, upload what is missing in batches, finish).
//   1. first deploy of 5,000 small files: CLI vs a zip upload of a new project     target ≤ 1.2×
//   2. first deploy of a 25 MB bundle of a few large files: the same                target ≤ 1.2×
//   3. zip re-upload of the 5,000 files with one changed vs the first zip upload    target ≤ 0.3×
//   4. CLI redeploy with one file changed vs that zip re-upload                     target ≤ 0.2×
//      (a base-version deploy, as a user's second `sitehall deploy`; the same redeploy with the
//      whole manifest, its base record removed, is printed beside it for comparison). Beside it,
//      the floor of any command written for Node, spawned as the CLI is: Node's start alone, and
//      Node's start with a listing and stat of the folder's files (the one way to see which file
//      changed), each against the re-upload: where the floor is over 0.2×, no Node CLI meets it
//   5. the same redeploy by `sitehall deploy --watch` (a client that stays up and knows the change
//      from the file system's events), from the file's write to the version's line in the CLI's
//      output, vs that zip re-upload                                                  target ≤ 0.2×
// Each figure is the best of the rounds; every first deploy sends contents new to the account
// (a salt per round and side), so nothing is skipped as already held. The disk is settled (sync)
// before each timed side: no side pays the write-back of the site folder the bench has just
// written or of the blobs the side before it stored.
//   npm run bench:deploy                 3 rounds
//   node bench/deploy.mjs --rounds 5
//   node bench/deploy.mjs --only bundle  figure 2 alone (a minute at most)
//   BENCH_CLI=/other/tree/packages/cli/bin/sitehall.js   another build of the CLI (an A/B)
import { spawn, spawnSync } from 'node:child_process';
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
  png,
  settleDisk,
  siteText,
  startServer,
  stopChildren,
} from './lib.mjs';

const root = path.resolve(import.meta.dirname, '..');
const argv = process.argv.slice(2);
const roundsAt = argv.indexOf('--rounds');
const ROUNDS = roundsAt >= 0 ? Number(argv[roundsAt + 1]) : 3;
const onlyAt = argv.indexOf('--only');
const ONLY_BUNDLE = onlyAt >= 0 && argv[onlyAt + 1] === 'bundle';
const FILES = 5_000;
const FOLDERS = 10;
const BUNDLE_FILES = 4;
const BUNDLE_BYTES = 25 * 1024 * 1024;

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
  // Room for the 25 MB bundle, as an operator who expects such sites sets it in the admin console.
  await api('PUT', '/api/admin/config', {
    token: session,
    json: { max_file_bytes: 64 * 1024 * 1024, max_upload_bytes: 256 * 1024 * 1024 },
  });

  /** 5,000 small text files (about 2 KB each) in ten folders, and an index page; `salt` in each. */
  const smallSite = (salt) => {
    const files = { 'index.html': `<!doctype html><title>bench</title><h1>bench ${salt}</h1>` };
    for (let i = 1; i < FILES; i++) {
      const ext = ['html', 'css', 'js'][i % 3];
      const comment = ext === 'html' ? `<!-- ${salt} -->` : `/* ${salt} */`;
      files[`p${i % FOLDERS}/f${i}.${ext}`] = `${siteText(2048, i)}\n${comment}`;
    }
    return files;
  };
  /** A few large files (incompressible images) making 25 MB, and an index page. */
  const bundleSite = (salt) => {
    const files = { 'index.html': `<!doctype html><title>bundle</title><h1>${salt}</h1>` };
    for (let i = 0; i < BUNDLE_FILES; i++) files[`assets/big-${i}.png`] = png(BUNDLE_BYTES / BUNDLE_FILES);
    return files;
  };
  const writeSite = (dir, files) => {
    fs.rmSync(dir, { recursive: true, force: true });
    for (const [p, c] of Object.entries(files)) {
      fs.mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
      fs.writeFileSync(path.join(dir, p), c);
    }
  };
  const cli = (args) => {
    settleDisk();
    const started = performance.now();
    const r = spawnSync(
      'taskset',
      [
        '-c',
        CLIENT_CPU,
        process.execPath,
        process.env.BENCH_CLI ?? path.join(root, 'packages/cli/bin/sitehall.js'),
        ...args,
      ],
      {
        // In the bench's folder: the CLI writes its project link in the working folder and its
        // hash cache under XDG_CACHE_HOME.
        cwd: work,
        env: {
          ...process.env,
          SITEHALL_URL: base,
          SITEHALL_TOKEN: token,
          XDG_CACHE_HOME: path.join(work, 'cache'),
        },
        encoding: 'utf8',
      },
    );
    if (r.status !== 0) throw new Error(`sitehall ${args.join(' ')}: ${r.stderr}`);
    return { ms: performance.now() - started, out: r.stdout + r.stderr };
  };
  /**
   * The floor of a redeploy by any Node command, spawned as the CLI is (the same core, the disk
   * settled first): Node's start (`-e 0`), and Node's start with a walk of the folder that stats
   * every file as the CLI's listing does, nothing read or hashed, no request made.
   */
  const floorScript = path.join(work, 'floor.mjs');
  fs.writeFileSync(
    floorScript,
    [
      "import fs from 'node:fs';",
      "import path from 'node:path';",
      'let n = 0;',
      'const walk = (dir) => {',
      '  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {',
      '    const p = path.join(dir, e.name);',
      '    if (e.isDirectory()) walk(p);',
      '    else if (fs.statSync(p).size >= 0) n++;',
      '  }',
      '};',
      'walk(process.argv[2]);',
      'if (n === 0) process.exit(1);',
      '',
    ].join('\n'),
  );
  const floor = (args) => {
    settleDisk();
    const started = performance.now();
    const r = spawnSync('taskset', ['-c', CLIENT_CPU, process.execPath, ...args], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`node ${args.join(' ')}: ${r.stderr}`);
    return performance.now() - started;
  };
  const form = (zip, name) => {
    const fd = new FormData();
    if (name) fd.append('project_name', name);
    fd.append('files', new Blob([zip]), 'site.zip');
    return fd;
  };
  const zipUpload = async (zip, name) => {
    settleDisk();
    const started = performance.now();
    const { project } = await api('POST', '/api/projects/upload', { token: session, body: form(zip, name) });
    return { ms: performance.now() - started, id: project.id };
  };
  const zipReupload = async (id, zip) => {
    settleDisk();
    const started = performance.now();
    await api('PUT', `/api/projects/${id}`, { token: session, body: form(zip) });
    return performance.now() - started;
  };
  const best = (xs) => Math.min(...xs);
  const results = [];
  const report = (what, ours, reference, target) => {
    const ratio = ours / reference;
    const met = ratio <= target;
    results.push(met);
    console.log(
      `${met ? 'MET   ' : 'MISSED'} ${what}: ${ours.toFixed(0)} ms vs ${reference.toFixed(0)} ms → ${ratio.toFixed(2)}× (target ≤ ${target}×)`,
    );
  };

  // 1 and 2: first deploys, each side with contents new to the account.
  const firsts = { small: { cli: [], zip: [] }, bundle: { cli: [], zip: [] } };
  let digestId;
  let zipId;
  let smallFiles;
  const siteDir = path.join(work, 'site');
  for (let round = 1; round <= ROUNDS; round++) {
    const kinds = [
      ['small', smallSite],
      ['bundle', bundleSite],
    ].filter(([kind]) => !ONLY_BUNDLE || kind === 'bundle');
    for (const [kind, make] of kinds) {
      const zipped = make(`zip ${round}`);
      const zip = await makeZip(zipped);
      const z = await zipUpload(zip, `基准-压缩包-${kind}-${round}`);
      const files = make(`cli ${round}`);
      writeSite(siteDir, files);
      const d = cli(['deploy', siteDir, '--name', `基准-摘要部署-${kind}-${round}`, '--no-cache']);
      const n = Object.keys(files).length;
      if (!d.out.includes(`需要上传 ${n} 个`)) throw new Error(`expected ${n} uploads:\n${d.out}`);
      firsts[kind].cli.push(d.ms);
      firsts[kind].zip.push(z.ms);
      console.log(
        `round ${round} first deploy, ${kind === 'small' ? `${FILES} small files` : '25 MB bundle'}: ` +
          `CLI ${pad(d.ms.toFixed(0), 6)} ms   zip upload ${pad(z.ms.toFixed(0), 6)} ms`,
      );
      if (kind === 'small' && round === ROUNDS) {
        digestId = Number(/项目 (\d+)/.exec(d.out)[1]);
        zipId = z.id;
        smallFiles = { cli: files, zip: zipped };
      }
    }
  }

  if (ONLY_BUNDLE) {
    console.log(`\nbest of ${ROUNDS} rounds, load ${os.loadavg()[0].toFixed(1)}:`);
    report(
      `first deploy of a 25 MB bundle (${BUNDLE_FILES} large files), CLI vs zip upload`,
      best(firsts.bundle.cli),
      best(firsts.bundle.zip),
      1.2,
    );
    process.exitCode = results.every(Boolean) ? 0 : 1;
  } else {
    // 3 and 4: one file changed, as a zip re-upload and as a CLI redeploy (its hash cache warm).
    writeSite(siteDir, smallFiles.cli);
    cli(['deploy', siteDir, '--project', String(digestId)]);
    const changed = 'p1/f1.css';
    const reuploads = [];
    const redeploys = [];
    const wholes = [];
    const starts = [];
    const walks = [];
    for (let round = 1; round <= ROUNDS; round++) {
      const zip = await makeZip({
        ...smallFiles.zip,
        [changed]: `${smallFiles.zip[changed]}\n/* round ${round} */`,
      });
      reuploads.push(await zipReupload(zipId, zip));
      fs.writeFileSync(path.join(siteDir, changed), `${smallFiles.cli[changed]}\n/* round ${round} */`);
      const d = cli(['deploy', siteDir, '--project', String(digestId)]);
      if (!d.out.includes('需要上传 1 个')) throw new Error(`expected one upload:\n${d.out}`);
      redeploys.push(d.ms);
      const cached = /哈希缓存：(\d+) 个文件未改动/.exec(d.out)?.[1] ?? '0';
      // The same redeploy without the record of the version deployed (docs/decisions/deploys.md
      // "Base-version deploys"): the whole manifest, as before base-version deploys.
      fs.writeFileSync(
        path.join(siteDir, changed),
        `${smallFiles.cli[changed]}\n/* round ${round}, whole */`,
      );
      // The record as this CLI writes it (`.base`) or as one before it did (`.base.json`).
      for (const f of fs.readdirSync(path.join(work, 'cache', 'sitehall')))
        if (/\.base(\.json)?$/.test(f)) fs.rmSync(path.join(work, 'cache', 'sitehall', f));
      const whole = cli(['deploy', siteDir, '--project', String(digestId)]);
      if (!whole.out.includes('需要上传 1 个')) throw new Error(`expected one upload:\n${whole.out}`);
      wholes.push(whole.ms);
      starts.push(floor(['-e', '0']));
      walks.push(floor([floorScript, siteDir]));
      console.log(
        `round ${round} one file changed: zip re-upload ${pad(reuploads.at(-1).toFixed(0), 6)} ms   ` +
          `CLI redeploy ${pad(d.ms.toFixed(0), 6)} ms (${cached} hashes from the CLI cache)   ` +
          `with the whole manifest ${pad(whole.ms.toFixed(0), 6)} ms   ` +
          `floor: Node's start ${pad(starts.at(-1).toFixed(0), 4)} ms, with the listing ${pad(walks.at(-1).toFixed(0), 4)} ms`,
      );
    }

    // 5: the watch. Started on the digest project (its first deploy finds the folder unchanged),
    // then each round one write of the changed file, timed to the CLI's line for its version.
    const watcher = spawn(
      'taskset',
      [
        '-c',
        CLIENT_CPU,
        process.execPath,
        process.env.BENCH_CLI ?? path.join(root, 'packages/cli/bin/sitehall.js'),
        'deploy',
        siteDir,
        '--project',
        String(digestId),
        '--watch',
      ],
      {
        cwd: work,
        env: {
          ...process.env,
          SITEHALL_URL: base,
          SITEHALL_TOKEN: token,
          XDG_CACHE_HOME: path.join(work, 'cache'),
        },
      },
    );
    let said = '';
    const heard = [];
    const onSaid = (d) => {
      said += d;
      for (const check of [...heard]) check();
    };
    watcher.stdout.on('data', onSaid);
    watcher.stderr.on('data', onSaid);
    /** The next match of `re` in the watch's output (what came before it is dropped). */
    const line = (re) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the watch did not say ${re}:\n${said}`)), 60_000);
        const check = () => {
          const m = re.exec(said);
          if (!m) return;
          heard.splice(heard.indexOf(check), 1);
          clearTimeout(timer);
          said = said.slice(m.index + m[0].length);
          resolve(m);
        };
        heard.push(check);
        check();
      });
    const watched = [];
    try {
      await line(/正在监视/);
      for (let round = 1; round <= ROUNDS + 2; round++) {
        settleDisk();
        const started = performance.now();
        fs.writeFileSync(path.join(siteDir, changed), `${smallFiles.cli[changed]}\n/* watched ${round} */`);
        const m = await line(/已部署第 \d+ 版：1 个文件有改动，上传 1 个（(\d+) 毫秒）/);
        const ms = performance.now() - started;
        // The first two are the watch's own warm-up (its first request on a new connection).
        if (round > 2) watched.push(ms);
        console.log(
          `round ${round} watched redeploy: ${pad(ms.toFixed(0), 6)} ms from the write ` +
            `(${m[1]} ms of it the deploy itself, after the folder was still)`,
        );
      }
    } finally {
      // Its end writes the hash cache into the bench's folder: waited for before that goes.
      const exited = new Promise((resolve) => watcher.on('exit', resolve));
      watcher.kill('SIGINT');
      await exited;
    }

    console.log(`\nbest of ${ROUNDS} rounds, load ${os.loadavg()[0].toFixed(1)}:`);
    report(
      `first deploy of ${FILES} small files, CLI vs zip upload`,
      best(firsts.small.cli),
      best(firsts.small.zip),
      1.2,
    );
    report(
      `first deploy of a 25 MB bundle (${BUNDLE_FILES} large files), CLI vs zip upload`,
      best(firsts.bundle.cli),
      best(firsts.bundle.zip),
      1.2,
    );
    report(
      `zip re-upload of ${FILES} files, one changed, vs the first zip upload`,
      best(reuploads),
      best(firsts.small.zip),
      0.3,
    );
    report(`CLI redeploy, one file changed, vs the zip re-upload`, best(redeploys), best(reuploads), 0.2);
    console.log(
      `       (the same redeploy with the whole manifest: ${best(wholes).toFixed(0)} ms → ` +
        `${(best(wholes) / best(reuploads)).toFixed(2)}×)`,
    );
    // The floor under figure 4: what any Node command pays before it can know what changed.
    const reupload = best(reuploads);
    const floorMs = best(walks);
    console.log(
      `       (the floor of any Node command: its start ${best(starts).toFixed(0)} ms → ` +
        `${(best(starts) / reupload).toFixed(2)}×; its start and the listing of ${FILES} files ` +
        `${floorMs.toFixed(0)} ms → ${(floorMs / reupload).toFixed(2)}×; ` +
        (floorMs / reupload > 0.2
          ? `over the target's ${(0.2 * reupload).toFixed(0)} ms before any request is made)`
          : `under the target's ${(0.2 * reupload).toFixed(0)} ms)`),
    );
    report(
      `redeploy by sitehall deploy --watch, one file changed, vs the zip re-upload`,
      best(watched),
      reupload,
      0.2,
    );
    process.exitCode = results.every(Boolean) ? 0 : 1;
  }
} finally {
  stopChildren();
  fs.rmSync(work, { recursive: true, force: true });
}
