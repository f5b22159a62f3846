#!/usr/bin/env node
// Chaos run (docs/benchmarks.md "Chaos"): three built instances (server/dist) behind the shipped
// deploy/nginx/sitehall.conf, on PostgreSQL (a fresh database on 127.0.0.1:5432), Redis (a fresh key
// prefix on 127.0.0.1:6379) and an S3 stand (bench/s3-stand.mjs), each reached through a TCP proxy
// (server/test/faults/tcp-proxy.ts). Mixed load from clients on loopback addresses of their own:
// visitors read live sites, the showcase and the app; users upload zips and folders, send new
// versions and digest deploys (the CLI's protocol), and delete projects; an admin approves. First
// a calm phase (the reference), then the fault phase: kill -9 of a random instance every 30 s,
// restarted 5 s later, and with --cut one dependency cut for 30 s. Afterwards every acknowledged
// write is checked against the database, the bucket and what nginx serves, and the leftovers
// (staging, leases, render jobs) are counted. Prints failed requests by kind, anything lost and
// the target lines (MET/MISSED); exits 1 when a target is missed.
//   npm run bench:chaos [-- --minutes 3 --baseline-seconds 45 --clients 12 --kills on
//                          --kill-every 30 --restart-after 5 --cut none|s3|postgres|redis
//                          --cut-seconds 30 --cut-at 40 --render 2 --keep --env KEY=VALUE ...]
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { Redis } from 'ioredis';
import pg from 'pg';
import { freePort, makeCertificate, NGINX, renderSitehallConf, startNginx } from '../scripts/nginx-local.mjs';
import { startTcpProxy } from '../server/test/faults/tcp-proxy.ts';
import { BENCH_PASSWORD, makeZip, SERVER_NODE_ARGS, siteText } from './lib.mjs';
import { startS3Stand } from './s3-stand.mjs';

const { values: args } = parseArgs({
  options: {
    minutes: { type: 'string', default: '3' },
    'baseline-seconds': { type: 'string', default: '45' },
    clients: { type: 'string', default: '12' },
    kills: { type: 'string', default: 'on' },
    'kill-every': { type: 'string', default: '30' },
    'restart-after': { type: 'string', default: '5' },
    cut: { type: 'string', default: 'none' },
    'cut-seconds': { type: 'string', default: '30' },
    'cut-at': { type: 'string', default: '40' },
    render: { type: 'string', default: '2' },
    keep: { type: 'boolean', default: false },
    env: { type: 'string', multiple: true, default: [] },
  },
});
const FAULT_MS = Number(args.minutes) * 60_000;
const BASELINE_MS = Number(args['baseline-seconds']) * 1000;
const CLIENTS = Math.max(4, Number(args.clients));
const KILLS = args.kills === 'on';
const KILL_EVERY_MS = Number(args['kill-every']) * 1000;
const RESTART_AFTER_MS = Number(args['restart-after']) * 1000;
const CUT = args.cut;
const CUT_MS = Number(args['cut-seconds']) * 1000;
const CUT_AT_MS = Number(args['cut-at']) * 1000;
const RENDERING = Number(args.render);
if (!['none', 's3', 'postgres', 'redis'].includes(CUT))
  throw new Error('--cut is none, s3, postgres or redis');
if (!NGINX) {
  console.error('nginx is needed: apt-get install -y nginx-light');
  process.exit(1);
}

const root = path.resolve(import.meta.dirname, '..');
const PG_ADMIN = process.env.CHAOS_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const REDIS = new URL(process.env.CHAOS_REDIS_URL ?? 'redis://127.0.0.1:6379');
const APP = 'app.example.com';
const siteHost = (id) => `p${id}.sites.example.com`;
const sha = (b) => createHash('sha256').update(b).digest('hex');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const pick = (list) => list[Math.floor(Math.random() * list.length)];
const started = Date.now();
const since = () => `${((Date.now() - started) / 1000).toFixed(0)}s`;
const say = (line) => console.log(`[${since()}] ${line}`);

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'sitehall-chaos-'));
fs.chmodSync(work, 0o755);
const tag = randomBytes(4).toString('hex');
const dbName = `sitehall_chaos_${tag}`;
const redisPrefix = `sitehall-chaos-${tag}:`;
const cleanups = [];
async function cleanup() {
  for (const step of cleanups.splice(0).reverse())
    await step().catch((e) => console.error('cleanup:', e.message));
}
for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, () => cleanup().finally(() => process.exit(130)));

// ---- Dependencies, each behind a proxy the run can cut ------------------------------------------
const pgAdmin = new pg.Client(PG_ADMIN);
await pgAdmin.connect();
await pgAdmin.query(`create database ${dbName}`);
cleanups.push(async () => {
  if (!args.keep) await pgAdmin.query(`drop database if exists ${dbName} with (force)`);
  await pgAdmin.end();
});
const dbUrl = new URL(PG_ADMIN);
dbUrl.pathname = `/${dbName}`;
const db = new pg.Pool({ connectionString: dbUrl.toString(), max: 2 });
db.on('error', () => {});
cleanups.push(() => db.end());
cleanups.push(async () => {
  const r = new Redis(REDIS.toString());
  let cursor = '0';
  do {
    const [next, keys] = await r.scan(cursor, 'MATCH', `${redisPrefix}*`, 'COUNT', 500);
    cursor = next;
    if (keys.length) await r.del(...keys);
  } while (cursor !== '0');
  r.disconnect();
});

const bucket = 'sitehall-chaos';
const standLog = fs.createWriteStream(path.join(work, 's3rver.log'));
fs.mkdirSync(path.join(work, 's3'));
const stand = await startS3Stand({ dir: path.join(work, 's3'), bucket, log: standLog });
cleanups.push(() => stand.stop());
const proxies = {
  postgres: await startTcpProxy({ host: dbUrl.hostname, port: Number(dbUrl.port || 5432) }),
  redis: await startTcpProxy({ host: REDIS.hostname, port: Number(REDIS.port || 6379) }),
  s3: await startTcpProxy({ host: '127.0.0.1', port: stand.port }),
};
cleanups.push(async () => {
  for (const p of Object.values(proxies)) await p.close();
});
const s3 = new S3Client({
  endpoint: stand.endpoint,
  region: 'us-east-1',
  forcePathStyle: true,
  credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
});

// ---- Three instances on fixed ports (a restart comes back where nginx expects it) ---------------
const webDist = path.join(work, 'web');
fs.mkdirSync(path.join(webDist, 'assets'), { recursive: true });
fs.writeFileSync(
  path.join(webDist, 'index.html'),
  '<!doctype html><title>站点展厅</title><div id="root"></div>',
);
fs.writeFileSync(path.join(webDist, 'assets', 'app-chaos.js'), 'console.log("app")');
const dbViaProxy = new URL(dbUrl);
dbViaProxy.host = proxies.postgres.address;

const lastLine = (file) => fs.readFileSync(file, 'utf8').trim().split('\n').at(-1)?.slice(0, 300) ?? '';
const instances = [];
for (let i = 0; i < 3; i++) {
  const port = await freePort();
  const dataDir = path.join(work, `instance-${i + 1}`);
  const log = path.join(work, `instance-${i + 1}.log`);
  const env = {
    ...process.env,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    PORT: String(port),
    SITES_PORT: '0',
    DATA_DIR: dataDir,
    DATABASE_URL: dbViaProxy.toString(),
    REDIS_URL: `redis://${proxies.redis.address}`,
    REDIS_PREFIX: redisPrefix,
    ...stand.env,
    S3_ENDPOINT: `http://${proxies.s3.address}`,
    ADMIN_PASSWORD: BENCH_PASSWORD,
    WEB_DIST: webDist,
    SITES_ORIGIN: 'https://sites.example.com',
    SITES_SUBDOMAINS: 'true',
    TRUST_PROXY: 'true',
    SWEEP_INTERVAL_SECONDS: '30',
    RENDER_WORKER: i < RENDERING ? 'on' : 'off',
    ...Object.fromEntries(args.env.map((pair) => pair.split(/=(.*)/s).slice(0, 2))),
  };
  const instance = { name: `#${i + 1}`, port, dataDir, log, child: null, kills: 0, starts: 0 };
  instance.start = async () => {
    const fd = fs.openSync(log, 'a');
    instance.child = spawn(process.execPath, [...SERVER_NODE_ARGS, path.join(root, 'server/dist/main.js')], {
      env,
      stdio: ['ignore', fd, fd],
    });
    fs.closeSync(fd);
    instance.starts++;
    const until = Date.now() + 60_000;
    for (;;) {
      const up = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (up) return;
      if (instance.child.exitCode !== null)
        throw new Error(
          `instance ${instance.name} exited at start (${instance.child.exitCode}): ${lastLine(log)}`,
        );
      if (Date.now() > until) throw new Error(`instance ${instance.name} did not answer within 60 s`);
      await sleep(100);
    }
  };
  instances.push(instance);
}
cleanups.push(async () => {
  for (const { child } of instances) {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
  }
});
for (const instance of instances) await instance.start(); // the first migrates
const readyAll = async (ms = 90_000) => {
  const until = Date.now() + ms;
  for (const { port, name } of instances) {
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (Date.now() > until) throw new Error(`instance ${name} is not ready`);
      await sleep(250);
    }
  }
};
await readyAll();

// ---- nginx with the shipped file ----------------------------------------------------------------
const nginxDir = path.join(work, 'nginx');
fs.mkdirSync(nginxDir);
const { cert, key } = makeCertificate(nginxDir);
const ca = fs.readFileSync(cert, 'utf8');
const httpsPort = await freePort();
const httpPort = await freePort();
const nginx = await startNginx({
  dir: nginxDir,
  conf: renderSitehallConf({
    httpPort,
    httpsPort,
    upstreamPorts: instances.map((s) => s.port),
    cert,
    key,
    dir: nginxDir,
  }),
  httpPort,
  workers: 2,
});
cleanups.push(nginx.stop);

// ---- Requests: every one recorded ---------------------------------------------------------------
/** kind → phase → { total, failed, statuses } */
const tally = new Map();
const failures = [];
let phase = 'setup';
let cutWindow = null; // [from, to] in ms since epoch, while a dependency is cut (plus 5 s after)
const OUTAGE_NOTE = { s3: 'storage', postgres: 'database' };
const VISITOR_KINDS = new Set(['showcase', 'site page', 'site file', 'app shell']);

function record(kind, status, ok, note) {
  if (!tally.has(kind)) tally.set(kind, new Map());
  const byPhase = tally.get(kind);
  if (!byPhase.has(phase)) byPhase.set(phase, { total: 0, failed: 0, outage: 0, statuses: new Map() });
  const row = byPhase.get(phase);
  row.total++;
  if (ok) return;
  const now = Date.now();
  const duringCut = cutWindow && now >= cutWindow[0] && now <= cutWindow[1] + 5_000;
  // The cut dependency's own 503 during the cut is what the cut means (a Redis cut has none).
  if (duringCut && status === 503 && note === OUTAGE_NOTE[CUT]) row.outage++;
  else row.failed++;
  const label = `${status}${note ? ` ${note}` : ''}`;
  row.statuses.set(label, (row.statuses.get(label) ?? 0) + 1);
  if (failures.length < 2000) failures.push({ at: now, phase, kind, label });
}

/** A client on a loopback address of its own (per-IP limits see different visitors). */
function makeClient(n) {
  const agent = new https.Agent({ keepAlive: true, maxSockets: 2, localAddress: `127.0.0.${20 + n}`, ca });
  const request = (kind, host, urlPath, { method = 'GET', headers = {}, body, ok = (s) => s < 400 } = {}) =>
    new Promise((resolve) => {
      const req = https.request(
        {
          host: '127.0.0.1',
          port: httpsPort,
          servername: host,
          method,
          path: urlPath,
          headers: { host, ...headers, ...(body ? { 'content-length': String(body.length) } : {}) },
          agent,
          timeout: 120_000,
        },
        (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          // A body cut off (its instance killed while nginx streamed it) ends in close, not end.
          res.on('close', () => {
            if (res.complete) return;
            record(kind, `${res.statusCode} cut`, false, 'body cut off');
            resolve({ status: 0, body: Buffer.alloc(0), good: false });
          });
          res.on('error', () => {});
          res.on('end', () => {
            const buf = Buffer.concat(chunks);
            const status = res.statusCode ?? 0;
            // nginx's own error pages say so; an instance's never do.
            const fromNginx = status >= 500 && /<center>nginx/.test(buf.toString('latin1'));
            const good = ok(status, buf);
            const text = buf.toString();
            const why = fromNginx
              ? 'nginx'
              : good || status < 500
                ? undefined
                : text.includes('文件存储暂时不可用')
                  ? 'storage'
                  : text.includes('服务暂时不可用')
                    ? 'database'
                    : 'instance';
            record(kind, status, good, why);
            let json;
            try {
              json = JSON.parse(buf.toString());
            } catch {}
            resolve({ status, body: buf, json, good });
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', (error) => {
        record(kind, 'ERR', false, error.code ?? error.message);
        resolve({ status: 0, body: Buffer.alloc(0), good: false });
      });
      req.end(body);
    });
  return { request, agent };
}

const json = (value) => ({
  headers: { 'content-type': 'application/json' },
  body: Buffer.from(JSON.stringify(value)),
});
const bearer = (token) => ({ authorization: `Bearer ${token}` });
async function multipartBody(fields, files) {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  for (const f of files) form.append('files', new Blob([f.content]), f.name);
  const r = new Request('http://x/', { method: 'POST', body: form });
  return {
    headers: { 'content-type': r.headers.get('content-type') },
    body: Buffer.from(await r.arrayBuffer()),
  };
}

// ---- What was acknowledged ----------------------------------------------------------------------
/** `${projectId}@${version}` → { projectId, version, files: {path: sha256}, via } */
const versions = new Map();
const approvals = []; // { projectId, version }
const deletes = new Map(); // projectId → 'acked' | 'failed'
const live = new Map(); // projectId → files of the live version (seed sites, never changed)
const content = new Map(); // sha256 → bytes, to compare what is served

function siteFiles(seed, { big = false, n = 3 } = {}) {
  const files = [
    {
      name: 'index.html',
      content: Buffer.from(
        `<!doctype html><html lang="zh-CN"><title>混沌 ${seed}</title><h1>${seed}</h1></html>`,
      ),
    },
  ];
  for (let i = 1; i < n; i++)
    files.push({
      name: `assets/part-${i}.css`,
      content: Buffer.from(siteText(2048 + i * 512, seed.length + i) + seed),
    });
  if (big)
    files.push({
      name: 'media/big.pdf',
      content: Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(1536 * 1024)]),
    });
  for (const f of files) content.set(sha(f.content), f.content);
  return files;
}
const manifest = (files) => Object.fromEntries(files.map((f) => [f.name, sha(f.content)]));
function acknowledge(project, files, via) {
  const version = project.latest_version;
  versions.set(`${project.id}@${version}`, { projectId: project.id, version, files: manifest(files), via });
}

// ---- Setup: admin, users, seed sites ------------------------------------------------------------
const adminClient = makeClient(0);
const login = async (client, username, password) => {
  const res = await client.request('login', APP, '/api/auth/login', {
    method: 'POST',
    ...json({ username, password }),
  });
  if (!res.good) throw new Error(`login ${username}: ${res.status} ${res.body}`);
  return res.json.data.token;
};
const adminToken = await login(adminClient, 'admin', BENCH_PASSWORD);
await adminClient.request('settings', APP, '/api/admin/config', {
  method: 'PUT',
  headers: { ...bearer(adminToken), 'content-type': 'application/json' },
  body: Buffer.from(JSON.stringify({ max_uploads_per_hour: 0 })),
});
const writers = [];
const visitorCount = Math.ceil((CLIENTS - 1) / 2);
for (let i = 0; i < CLIENTS - 1 - visitorCount; i++) {
  const client = makeClient(1 + i);
  const made = await adminClient.request('register', APP, '/api/auth/register', {
    method: 'POST',
    headers: { ...bearer(adminToken), 'content-type': 'application/json' },
    body: Buffer.from(JSON.stringify({ username: `chaos_${tag}_${i}` })),
  });
  if (!made.good) throw new Error(`register: ${made.status} ${made.body}`);
  const token = await login(client, made.json.data.user.username, made.json.data.password);
  writers.push({ client, token, projects: [], n: i });
}
const approve = async (client, projectId, version) => {
  const res = await client.request('approve', APP, `/api/admin/projects/${projectId}/review`, {
    method: 'POST',
    headers: { ...bearer(adminToken), 'content-type': 'application/json' },
    body: Buffer.from(JSON.stringify({ action: 'approve' })),
    ok: (s) => s < 400 || s === 409,
  });
  if (res.status === 200) approvals.push({ projectId, version });
  return res;
};
for (const w of writers) {
  for (let k = 0; k < 2; k++) {
    const files = siteFiles(`seed-${w.n}-${k}`, { big: k === 0 });
    const form = await multipartBody({ project_name: `种子站点 ${w.n}-${k}` }, [
      { name: 'site.zip', content: await makeZip(Object.fromEntries(files.map((f) => [f.name, f.content]))) },
    ]);
    const res = await w.client.request('upload zip', APP, '/api/projects/upload', {
      method: 'POST',
      headers: { ...bearer(w.token), ...form.headers },
      body: form.body,
    });
    if (res.status !== 201) throw new Error(`seed upload: ${res.status} ${res.body}`);
    const project = res.json.data.project;
    acknowledge(project, files, 'seed');
    if ((await approve(adminClient, project.id, project.latest_version)).status !== 200)
      throw new Error('seed approve');
    live.set(project.id, files);
  }
}
say(
  `setup done: ${instances.length} instances, ${writers.length} writers, ${visitorCount} visitors, ${live.size} seed sites`,
);

// ---- Load ---------------------------------------------------------------------------------------
let running = true;
let serial = 0;

async function visitorLoop(n) {
  const client = makeClient(50 + n);
  const seeds = [...live.keys()];
  while (running) {
    const r = Math.random();
    if (r < 0.15) await client.request('showcase', APP, '/api/projects/public?page=1&page_size=12');
    else if (r < 0.25) await client.request('app shell', APP, '/dashboard');
    else {
      const id = pick(seeds);
      const files = live.get(id);
      const file = r < 0.6 ? files[0] : pick(files);
      const expected = sha(file.content);
      await client.request(
        file === files[0] ? 'site page' : 'site file',
        siteHost(id),
        file === files[0] ? '/' : `/${file.name}`,
        {
          ok: (s, body) => s === 200 && sha(body) === expected,
        },
      );
    }
    await sleep(30);
  }
}

async function writerLoop(w) {
  const { client, token } = w;
  const auth = bearer(token);
  while (running) {
    const r = Math.random();
    const seed = `w${w.n}-${++serial}-${randomBytes(3).toString('hex')}`;
    const own = w.projects.filter((p) => !deletes.has(p));
    if (r < 0.25) {
      // A zip, now and then with a 1.5 MB file.
      const files = siteFiles(seed, { big: Math.random() < 0.2 });
      const form = await multipartBody({ project_name: `压缩包 ${seed}` }, [
        {
          name: 'site.zip',
          content: await makeZip(Object.fromEntries(files.map((f) => [f.name, f.content]))),
        },
      ]);
      const res = await client.request('upload zip', APP, '/api/projects/upload', {
        method: 'POST',
        headers: { ...auth, ...form.headers },
        body: form.body,
      });
      if (res.status === 201) {
        acknowledge(res.json.data.project, files, 'zip');
        w.projects.push(res.json.data.project.id);
      }
    } else if (r < 0.45) {
      const files = siteFiles(seed, { n: 5 });
      const form = await multipartBody({ project_name: `文件夹 ${seed}`, upload_type: 'files' }, files);
      const res = await client.request('upload folder', APP, '/api/projects/upload', {
        method: 'POST',
        headers: { ...auth, ...form.headers },
        body: form.body,
      });
      if (res.status === 201) {
        acknowledge(res.json.data.project, files, 'folder');
        w.projects.push(res.json.data.project.id);
      }
    } else if (r < 0.6 && own.length) {
      const id = pick(own);
      const files = siteFiles(seed, { n: 4 });
      const form = await multipartBody({}, files);
      const res = await client.request('new version', APP, `/api/projects/${id}`, {
        method: 'PUT',
        headers: { ...auth, ...form.headers },
        body: form.body,
      });
      if (res.status === 200 || res.status === 201) acknowledge(res.json.data.project, files, 'new version');
    } else if (r < 0.85) {
      // A digest deploy, as packages/cli sends it: the manifest, the contents the server lacks, finish.
      const files = siteFiles(seed, { n: 4, big: Math.random() < 0.15 });
      const target =
        own.length && Math.random() < 0.4 ? { project_id: pick(own) } : { project_name: `部署 ${seed}` };
      const start = await client.request('deploy start', APP, '/api/deploys', {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: Buffer.from(JSON.stringify({ ...target, files: manifest(files) })),
      });
      if (start.status !== 201) continue;
      const { deploy_id: deployId, required } = start.json.data;
      let sent = true;
      for (const hash of required) {
        const put = await client.request('deploy file', APP, `/api/deploys/${deployId}/files/${hash}`, {
          method: 'PUT',
          headers: { ...auth, 'content-type': 'application/octet-stream' },
          body: content.get(hash),
        });
        if (!put.good) sent = false;
      }
      if (!sent) continue;
      const finish = await client.request('deploy finish', APP, `/api/deploys/${deployId}/finish`, {
        method: 'POST',
        headers: auth,
      });
      if (finish.status === 201) {
        acknowledge(finish.json.data.project, files, 'deploy');
        if (!target.project_id) w.projects.push(finish.json.data.project.id);
      }
    } else if (own.length > 2) {
      const id = own[0];
      const res = await client.request('delete', APP, `/api/projects/${id}`, {
        method: 'DELETE',
        headers: auth,
      });
      deletes.set(id, res.status === 200 ? 'acked' : `failed ${res.status}`);
    }
    await sleep(200);
  }
}

async function adminLoop() {
  const client = makeClient(99);
  while (running) {
    const list = await client.request('admin list', APP, '/api/admin/projects/pending?page=1&page_size=20', {
      headers: bearer(adminToken),
    });
    for (const p of list.json?.data?.projects ?? []) {
      if (!running) break;
      if (deletes.has(p.id)) continue;
      await approve(client, p.id, p.latest_version);
    }
    await sleep(1000);
  }
}

// ---- Faults -------------------------------------------------------------------------------------
const events = [];
let failedStarts = 0;
/** Starts it again, as systemd's Restart=on-failure with RestartSec=2 (deploy/systemd) would. */
function restart(instance) {
  instance.restarting ??= restartLoop(instance).finally(() => {
    instance.restarting = undefined;
  });
  return instance.restarting;
}
async function restartLoop(instance) {
  for (;;) {
    try {
      await instance.start();
      events.push(`${since()} ${instance.name} back`);
      return;
    } catch (e) {
      failedStarts++;
      if (failedStarts <= 3 || failedStarts % 10 === 0)
        events.push(
          `${since()} ${instance.name} failed to start (${failedStarts} so far): ${e.message.slice(0, 200)}`,
        );
      if (instance.child.exitCode === null && instance.child.signalCode === null)
        instance.child.kill('SIGKILL');
      await sleep(2_000);
    }
  }
}
let faultTimers = [];
function startFaults() {
  const t0 = Date.now();
  if (KILLS) {
    const kill = () => {
      const up = instances.filter((s) => s.child && s.child.exitCode === null && s.child.signalCode === null);
      if (!up.length) return;
      const victim = pick(up);
      victim.child.kill('SIGKILL');
      victim.kills++;
      events.push(`${since()} kill -9 ${victim.name}`);
      faultTimers.push(setTimeout(() => restart(victim), RESTART_AFTER_MS));
    };
    faultTimers.push(setInterval(kill, KILL_EVERY_MS));
  }
  if (CUT !== 'none') {
    faultTimers.push(
      setTimeout(() => {
        proxies[CUT].cut();
        cutWindow = [Date.now(), t0 + CUT_AT_MS + CUT_MS];
        events.push(`${since()} ${CUT} cut`);
        faultTimers.push(
          setTimeout(() => {
            proxies[CUT].restore();
            cutWindow[1] = Date.now();
            events.push(`${since()} ${CUT} restored`);
          }, CUT_MS),
        );
      }, CUT_AT_MS),
    );
  }
}

const phaseStart = { baseline: Date.now() };
const loadAtStart = os.loadavg()[0];
phase = 'baseline';
const loops = [
  ...Array.from({ length: visitorCount }, (_, n) => visitorLoop(n)),
  ...writers.map((w) => writerLoop(w)),
  adminLoop(),
];
say(`calm phase: ${BASELINE_MS / 1000} s`);
await sleep(BASELINE_MS);
phase = 'fault';
phaseStart.fault = Date.now();
say(
  `fault phase: ${FAULT_MS / 1000} s${KILLS ? `, kill -9 every ${KILL_EVERY_MS / 1000} s (back after ${RESTART_AFTER_MS / 1000} s)` : ''}${CUT !== 'none' ? `, ${CUT} cut for ${CUT_MS / 1000} s at ${CUT_AT_MS / 1000} s` : ''}`,
);
startFaults();
await sleep(FAULT_MS);
for (const t of faultTimers) clearTimeout(t);
faultTimers = [];
running = false;
phase = 'after';
phaseStart.after = Date.now();
const loadAtEnd = os.loadavg()[0];
await Promise.all(loops);
// Leases written after this are work that goes on without the load (the render's pictures, stored
// under a lease while the queued renders run): counted apart from the leftovers.
const loadEnded = new Date().toISOString();
for (const p of Object.values(proxies)) p.restore();
say('load stopped; waiting for every instance to be back and ready');
await sleep(RESTART_AFTER_MS + 1000);
for (const s of instances) {
  if (s.restarting) await s.restarting;
  else if (s.child.exitCode !== null || s.child.signalCode !== null) await restart(s);
}
await readyAll();

// The admin approves what is still pending, so every project's newest version is the live one.
for (let round = 0; round < 5; round++) {
  const list = await adminClient.request(
    'admin list',
    APP,
    '/api/admin/projects/pending?page=1&page_size=100',
    {
      headers: bearer(adminToken),
    },
  );
  const pending = (list.json?.data?.projects ?? []).filter((p) => !deletes.has(p.id));
  if (!pending.length) break;
  for (const p of pending) await approve(adminClient, p.id, p.latest_version);
}

// Leftovers go with the sweep (every 30 s here; a killed process's at once): wait for it.
const stagingLeft = () =>
  instances.reduce((n, s) => {
    const dir = path.join(s.dataDir, 'staging');
    return n + (fs.existsSync(dir) ? fs.readdirSync(dir).length : 0);
  }, 0);
// A digest deploy left unfinished (a file PUT failed and the client gave up) holds its blobs until
// it expires, by design; any other lease left after the sweeps is a leftover.
/**
 * Blob leases by whose: an unfinished digest deploy's (`deploy:{id}` and the `sent:{id}` of what it
 * received; they go when it expires), a deploy's whose row is gone (a finish killed between taking
 * the row and releasing: kept an hour, docs/decisions/instances.md "Orphan sweep safety"), and the rest.
 */
const leasesLeft = async () => {
  const { rows } = await db.query(
    `select count(*) filter (where d.id is not null) as deploys,
            count(*) filter (where d.id is null and (l.upload_id like 'deploy:%' or l.upload_id like 'sent:%')) as ended,
            count(*) filter (where d.id is null and l.upload_id not like 'deploy:%' and l.upload_id not like 'sent:%' and l.created_at < $1) as other,
            count(*) filter (where d.id is null and l.upload_id not like 'deploy:%' and l.upload_id not like 'sent:%' and l.created_at >= $1) as working
       from blob_leases l left join deploys d on l.upload_id in ('deploy:' || d.id, 'sent:' || d.id)`,
    [loadEnded],
  );
  return {
    other: Number(rows[0].other),
    working: Number(rows[0].working),
    ended: Number(rows[0].ended),
    deploys: Number(rows[0].deploys),
  };
};
{
  const until = Date.now() + 75_000;
  while (Date.now() < until && (stagingLeft() > 0 || (await leasesLeft()).other > 0)) await sleep(1000);
}
say('verifying');

// ---- Verification -------------------------------------------------------------------------------
const lost = [];
const projects = new Map(
  (await db.query('select id, live_deployment_id from projects')).rows.map((r) => [Number(r.id), r]),
);
const deploymentRows = (await db.query('select id, project_id, version from deployments')).rows;
const deploymentId = new Map(deploymentRows.map((r) => [`${r.project_id}@${r.version}`, Number(r.id)]));
const versionOf = new Map(deploymentRows.map((r) => [Number(r.id), Number(r.version)]));
const filesOf = async (id) =>
  Object.fromEntries(
    (await db.query('select path, sha256 from deployment_files where deployment_id = $1', [id])).rows.map(
      (r) => [r.path, r.sha256],
    ),
  );
const sameFiles = (a, b) =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, v]) => b[k] === v);

for (const v of versions.values()) {
  if (deletes.has(v.projectId)) continue; // asked to go (acknowledged or not): checked below
  const id = deploymentId.get(`${v.projectId}@${v.version}`);
  if (!id) {
    lost.push(`version ${v.version} of project ${v.projectId} (${v.via}) is missing`);
    continue;
  }
  const stored = await filesOf(id);
  if (!sameFiles(v.files, stored))
    lost.push(`version ${v.version} of project ${v.projectId} (${v.via}) has other files`);
}
for (const a of approvals) {
  if (deletes.has(a.projectId)) continue;
  const p = projects.get(a.projectId);
  const liveVersion = p?.live_deployment_id ? versionOf.get(Number(p.live_deployment_id)) : undefined;
  if (!liveVersion || liveVersion < a.version)
    lost.push(`approval of version ${a.version} of project ${a.projectId}: live is ${liveVersion ?? 'none'}`);
}
let deletesCommittedButFailed = 0;
for (const [id, outcome] of deletes) {
  if (outcome === 'acked' && projects.has(id)) lost.push(`acknowledged delete of project ${id}: still there`);
  if (outcome !== 'acked' && !projects.has(id)) deletesCommittedButFailed++;
}

// Served: every live version's files through nginx, byte for byte.
const checker = makeClient(98);
let servedChecked = 0;
const notServed = [];
for (const [id, p] of projects) {
  if (!p.live_deployment_id) continue;
  const files = await filesOf(Number(p.live_deployment_id));
  for (const [file, hash] of Object.entries(files)) {
    // A 503 is the store or the database looking away for a moment (the watches), not a loss: ask again.
    let res = await checker.request('verify', siteHost(id), `/${file}`);
    for (let i = 0; i < 10 && res.status === 503; i++) {
      await sleep(1000);
      res = await checker.request('verify', siteHost(id), `/${file}`);
    }
    servedChecked++;
    if (res.status !== 200 || sha(res.body) !== hash) notServed.push(`project ${id} /${file}: ${res.status}`);
  }
}

// The bucket against the database.
const present = new Set();
let tmpObjects = 0;
for (let token; ; ) {
  const page = await s3.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken: token }));
  for (const { Key } of page.Contents ?? []) {
    const m = /^blobs\/[0-9a-f]{2}\/([0-9a-f]{64})$/.exec(Key);
    if (m) present.add(m[1]);
    else if (Key.startsWith('tmp/')) tmpObjects++;
  }
  if (!page.IsTruncated) break;
  token = page.NextContinuationToken;
}
const referenced = new Map();
for (const r of (await db.query('select distinct sha256 from deployment_files')).rows)
  referenced.set(r.sha256, 'file');
for (const r of (
  await db.query(
    'select thumbnail_sha256 as a, thumbnail_small_sha256 as b from deployments where thumbnail_sha256 is not null or thumbnail_small_sha256 is not null',
  )
).rows) {
  if (r.a) referenced.set(r.a, 'picture');
  if (r.b) referenced.set(r.b, 'picture');
}
const missing = [...referenced].filter(([hash]) => !present.has(hash));
const leased = new Set((await db.query('select sha256 from blob_leases')).rows.map((r) => r.sha256));
const orphans = [...present].filter((h) => !referenced.has(h) && !leased.has(h)).length;
const renderRows = (await db.query('select status, count(*) as n from render_jobs group by status')).rows;
const renderErrors = (
  await db.query(
    "select error, count(*) as n from render_jobs where status = 'failed' group by error order by n desc limit 5",
  )
).rows;
const renderOrphans = Number(
  (
    await db.query(
      'select count(*) as n from render_jobs j where not exists (select 1 from deployments d where d.id = j.deployment_id)',
    )
  ).rows[0].n,
);

// ---- Report -------------------------------------------------------------------------------------
const pct = (a, b) => (b ? `${((100 * a) / b).toFixed(3)}%` : '—');
console.log(
  `\nSiteHall chaos run — ${os.cpus().length} CPUs (load average ${loadAtStart.toFixed(1)} at the start, ${loadAtEnd.toFixed(1)} at the end), Node ${process.version}, 3 instances (render worker on ${RENDERING}) behind deploy/nginx/sitehall.conf, PostgreSQL, Redis, S3 (s3rver); ${CLIENTS} clients; calm ${BASELINE_MS / 1000} s, then ${FAULT_MS / 1000} s with ${[KILLS ? `kill -9 every ${KILL_EVERY_MS / 1000} s` : '', CUT !== 'none' ? `${CUT} cut ${CUT_MS / 1000} s` : ''].filter(Boolean).join(' and ') || 'no faults'}`,
);
console.log(
  `\n${'requests'.padEnd(16)} ${'calm'.padStart(14)} ${'faults'.padStart(14)}   failures during faults`,
);
let totalRequests = 0;
for (const [kind, byPhase] of [...tally].sort()) {
  const cell = (ph) => {
    const row = byPhase.get(ph);
    if (!row) return '—'.padStart(14);
    return `${row.failed}/${row.total}`.padStart(14);
  };
  for (const row of byPhase.values()) totalRequests += row.total;
  const f = byPhase.get('fault');
  const detail = f ? [...f.statuses].map(([k, v]) => `${k} ×${v}`).join(', ') : '';
  const outage = f?.outage ? ` (+${f.outage} outage 503s)` : '';
  console.log(`${kind.padEnd(16)} ${cell('baseline')} ${cell('fault')}   ${detail}${outage}`);
}
console.log(`\nevents: ${events.join('; ') || 'none'}`);
console.log(
  `s3rver restarts by its supervisor: ${stand.restarts.length}; instance starts that failed: ${failedStarts}`,
);
console.log(
  `acknowledged: ${versions.size} versions, ${approvals.length} approvals, ${[...deletes.values()].filter((d) => d === 'acked').length} deletes; total requests ${totalRequests}`,
);
console.log(`served files checked through nginx: ${servedChecked}, wrong or failing: ${notServed.length}`);
for (const line of notServed.slice(0, 10)) console.log(`  not served: ${line}`);
console.log(
  `bucket: ${present.size} blobs, ${referenced.size} referenced, ${missing.length} referenced but missing, ${orphans} unreferenced and unleased, ${tmpObjects} temp objects`,
);
for (const [hash, what] of missing.slice(0, 10)) console.log(`  missing ${what}: ${hash}`);
const leases = await leasesLeft();
console.log(
  `staging folders left: ${stagingLeft()}; blob leases left: ${leases.other} (and ${leases.deploys} of unfinished digest deploys, which go when they expire; ${leases.ended} of deploys whose finish was killed, kept an hour; ${leases.working} written after the load stopped, by work still running such as the queued renders)`,
);
console.log(
  `render jobs: ${renderRows.map((r) => `${r.status} ${r.n}`).join(', ') || 'none'}; of deleted versions: ${renderOrphans}`,
);
for (const r of renderErrors) console.log(`  failed ×${r.n}: ${String(r.error).slice(0, 160)}`);
console.log(`deletes answered as failed that had committed: ${deletesCommittedButFailed}`);
for (const line of lost.slice(0, 20)) console.log(`  LOST: ${line}`);

// Error lines of the instances' logs, by message and phase.
const phaseOf = (time) => (time >= phaseStart.after ? 'after' : time >= phaseStart.fault ? 'faults' : 'calm');
const errorLines = new Map();
for (const s of instances) {
  for (const line of fs.readFileSync(s.log, 'utf8').split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const entry = JSON.parse(line);
      if (entry.level >= 50 && entry.time >= phaseStart.baseline) {
        const msg = `${entry.msg}${entry.err?.message ? `: ${entry.err.message.slice(0, 100)}` : ''}`;
        const counts = errorLines.get(msg) ?? { calm: 0, faults: 0, after: 0 };
        counts[phaseOf(entry.time)]++;
        errorLines.set(msg, counts);
      }
    } catch {}
  }
}
console.log('\ninstance log, error lines by message (calm / faults / after):');
for (const [msg, n] of [...errorLines].sort((a, b) => b[1].faults - a[1].faults).slice(0, 12))
  console.log(`  ${n.calm} / ${n.faults} / ${n.after}  ${msg}`);
// nginx's own errors, by kind.
const nginxErrors = new Map();
for (const line of fs.readFileSync(path.join(nginxDir, 'error.log'), 'utf8').split('\n')) {
  const m = /\[(error|warn|crit)\] \d+#\d+: \*\d+ (.*?)(?: while | \(|, client)/.exec(line);
  if (m) nginxErrors.set(`${m[1]} ${m[2]}`, (nginxErrors.get(`${m[1]} ${m[2]}`) ?? 0) + 1);
}
console.log('nginx error log, by kind:');
for (const [msg, n] of [...nginxErrors].sort((a, b) => b[1] - a[1]).slice(0, 8))
  console.log(`  ×${n} ${msg}`);

const visitorRate = (ph) => {
  let failed = 0;
  let total = 0;
  for (const kind of VISITOR_KINDS) {
    const row = tally.get(kind)?.get(ph);
    if (row) {
      failed += row.failed;
      total += row.total;
    }
  }
  return { failed, total, rate: total ? failed / total : 0 };
};
const calm = visitorRate('baseline');
const faulty = visitorRate('fault');
const targets = [
  ['acknowledged writes lost', lost.length, lost.length === 0],
  ['referenced blobs missing', missing.length, missing.length === 0],
  [
    'visitor requests failing',
    `${faulty.failed}/${faulty.total} (${pct(faulty.failed, faulty.total)}) with faults, ${calm.failed}/${calm.total} (${pct(calm.failed, calm.total)}) without`,
    faulty.rate <= calm.rate,
  ],
];
console.log('');
for (const [what, value, met] of targets) console.log(`${met ? 'MET   ' : 'MISSED'} ${what}: ${value}`);
console.log(`\nlogs and data: ${args.keep ? work : '(removed; --keep keeps them)'}`);
const allMet = targets.every((t) => t[2]);
await cleanup();
if (!args.keep) fs.rmSync(work, { recursive: true, force: true });
process.exit(allMet ? 0 : 1);
