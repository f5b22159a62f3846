#!/usr/bin/env node
// Cluster benchmark: a hot 10 KB asset through deploy/nginx/sitehall.conf (TLS, least_conn,
// upstream keep-alive) in front of two SiteHall instances, against nginx serving the same file
// from disk over TLS with the same certificate, in the same run; one instance reached directly
// (plain HTTP, no proxy) is measured too, to show what the proxy hop costs. The instances are the
// built server (server/dist) on one SQLite data folder; a project is uploaded and approved through
// the API. Servers (both nginx and both instances) share CPU 0, wrk runs on CPU 1 (taskset).
//   npm run bench:cluster [-- --duration 10 --connections 50 --rounds 3]
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { freePort, makeCertificate, NGINX, renderSitehallConf, startNginx } from '../scripts/nginx-local.mjs';
import { CLIENT_CPU, pad, publishSite, requireTools, SERVER_CPU, startServer, wrk } from './lib.mjs';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '3' },
  },
});
const DURATION = Number(args.duration);
const CONNECTIONS = Number(args.connections);
const ROUNDS = Number(args.rounds);

requireTools(['wrk', 'taskset', 'openssl'], 'nginx-light wrk util-linux openssl');
if (!NGINX) {
  console.error('nginx is needed: apt-get install -y nginx-light');
  process.exit(1);
}
const SITES_HOST = 'sites.example.com';

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'sitehall-bench-cluster-'));
// nginx's workers run as another user when started as root: they must reach the files below.
fs.chmodSync(work, 0o755);
const stops = [];
async function cleanup() {
  for (const stop of stops.splice(0).reverse()) await stop();
}
for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, () => cleanup().finally(() => process.exit(130)));
process.on('uncaughtException', (error) => {
  console.error(error);
  cleanup().finally(() => process.exit(1));
});

/** About 10 KB of CSS-like text. */
function asset() {
  let s = '';
  for (let i = 0; Buffer.byteLength(s) < 10 * 1024; i++)
    s += `.card-${i} { color: #${(i * 2654435761) % 999}; }\n`;
  return Buffer.from(s).subarray(0, 10 * 1024);
}
const FILES = {
  'index.html':
    '<!doctype html><html lang="zh-CN"><head><link rel="stylesheet" href="assets/app.css"></head><body>集群</body></html>',
  'assets/app.css': asset(),
};

// ---- Two SiteHall instances on one data folder ----------------------------------------------------
const dataDir = path.join(work, 'data');
async function startInstance() {
  const { child, port } = await startServer({
    DATA_DIR: dataDir,
    SITES_ORIGIN: `https://${SITES_HOST}`,
    TRUST_PROXY: 'true',
  });
  const exited = new Promise((r) => child.once('exit', r));
  stops.push(async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  });
  return port;
}
// One after the other: the first creates and migrates the database.
const ports = [await startInstance()];
ports.push(await startInstance());

const projectId = await publishSite(`http://127.0.0.1:${ports[0]}`, FILES, '集群基准站点');
const URL_PATH = `/sites/${projectId}/assets/app.css`;

// ---- nginx: the deployed config in front of both, and a static server of the same file ----------
const { cert, key } = makeCertificate(work);
const proxyDir = path.join(work, 'proxy');
fs.mkdirSync(proxyDir);
const proxyPort = await freePort();
const proxyHttp = await freePort();
const proxy = await startNginx({
  dir: proxyDir,
  conf: renderSitehallConf({
    httpPort: proxyHttp,
    httpsPort: proxyPort,
    upstreamPorts: ports,
    cert,
    key,
    dir: proxyDir,
  }),
  httpPort: proxyHttp,
  cpu: SERVER_CPU,
});
stops.push(proxy.stop);

const staticDir = path.join(work, 'static');
const www = path.join(staticDir, 'www');
fs.mkdirSync(path.dirname(path.join(www, URL_PATH)), { recursive: true });
fs.writeFileSync(path.join(www, URL_PATH), FILES['assets/app.css']);
const staticPort = await freePort();
const staticHttp = await freePort();
const staticNginx = await startNginx({
  dir: staticDir,
  conf: `server {
    listen 127.0.0.1:${staticHttp};
    listen 127.0.0.1:${staticPort} ssl http2;
    ssl_certificate ${cert};
    ssl_certificate_key ${key};
    ssl_session_cache shared:static_tls:10m;
    root ${www};
    sendfile on;
    tcp_nopush on;
    open_file_cache max=1000 inactive=60s;
    keepalive_requests 1000000;
  }
`,
  httpPort: staticHttp,
  cpu: SERVER_CPU,
});
stops.push(staticNginx.stop);

const measure = (url, seconds = DURATION) =>
  wrk(url, { seconds, connections: CONNECTIONS, headers: [`Host: ${SITES_HOST}`], only2xx: true });

const targets = [
  { label: 'nginx → 2 instances (TLS)', url: `https://127.0.0.1:${proxyPort}${URL_PATH}` },
  { label: 'nginx static file (TLS)', url: `https://127.0.0.1:${staticPort}${URL_PATH}` },
  { label: '1 instance direct (HTTP)', url: `http://127.0.0.1:${ports[0]}${URL_PATH}` },
];

// The same bytes everywhere first (the instances' answer through nginx, and directly).
const direct = await new Promise((resolve, reject) => {
  // node:http, not fetch: fetch sends its own Host header.
  const req = http.get(
    { host: '127.0.0.1', port: ports[1], path: URL_PATH, headers: { host: SITES_HOST } },
    (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve(Buffer.concat(chunks)));
    },
  );
  req.on('error', reject);
});
if (!direct.equals(FILES['assets/app.css']))
  throw new Error('the instance sent other bytes than were uploaded');

console.log(
  `SiteHall cluster benchmark — ${os.cpus()[0]?.model ?? 'cpu'} ×${os.cpus().length}, Node ${process.version}, ` +
    `nginx and both instances on CPU ${SERVER_CPU}, wrk on CPU ${CLIENT_CPU}, ${CONNECTIONS} connections, ` +
    `${DURATION} s × ${ROUNDS} rounds, load average ${os.loadavg()[0].toFixed(1)}`,
);
for (const t of targets) measure(t.url, 2); // warm-up: caches, TLS sessions, upstream connections
const runs = targets.map(() => []);
// Alternate so a noisy moment hurts all alike; keep each one's best round.
for (let round = 0; round < ROUNDS; round++) {
  for (const [i, t] of targets.entries()) runs[i].push(measure(t.url));
}
const best = runs.map((rs) => rs.reduce((a, b) => (b.rps > a.rps ? b : a)));

const log = fs.readFileSync(path.join(proxyDir, 'access.log'), 'utf8');
const share = ports.map((p) => log.split(`upstream=127.0.0.1:${p} `).length - 1);

console.log(
  `\n${'10 KB asset via'.padEnd(28)} ${pad('req/s', 8)} ${pad('p99 ms', 8)} ${pad('÷ nginx static', 15)}`,
);
targets.forEach((t, i) => {
  console.log(
    `${t.label.padEnd(28)} ${pad(Math.round(best[i].rps), 8)} ${pad(best[i].p99.toFixed(2), 8)} ${pad((best[i].rps / best[1].rps).toFixed(2), 15)}`,
  );
});
console.log(`\nrequests per instance through nginx: ${share.join(' / ')}`);
await cleanup();
fs.rmSync(work, { recursive: true, force: true });
