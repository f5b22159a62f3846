// Runs deploy/nginx/sitehall.conf — the file docs/deploy.md tells operators to install — as an
// unprivileged, throw-away nginx: the listen ports, the instance list, the certificate and the log
// paths are substituted (every one must be found, so the file and its tests stay in step), and a
// minimal nginx.conf around it keeps pid, logs and temp files in one folder. Used by
// server/test/nginx.test.ts and bench/cluster.mjs.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
export const SITEHALL_CONF = path.join(root, 'deploy/nginx/sitehall.conf');
export const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => fs.existsSync(p)) ?? null;

function replaceOnce(text, from, to) {
  const parts = text.split(from);
  if (parts.length < 2) throw new Error(`deploy/nginx/sitehall.conf no longer contains: ${from}`);
  return parts.join(to);
}

/** sitehall.conf with local ports, instances, certificate and logs. */
export function renderSitehallConf({ httpPort, httpsPort, upstreamPorts, cert, key, dir }) {
  let text = fs.readFileSync(SITEHALL_CONF, 'utf8');
  text = replaceOnce(text, '    listen [::]:80;\n', '');
  text = replaceOnce(text, '    listen [::]:443 ssl http2;\n', '');
  text = replaceOnce(text, 'listen 80;', `listen 127.0.0.1:${httpPort};`);
  text = replaceOnce(text, 'listen 443 ssl http2;', `listen 127.0.0.1:${httpsPort} ssl http2;`);
  text = replaceOnce(text, '/etc/letsencrypt/live/app.example.com/fullchain.pem', cert);
  text = replaceOnce(text, '/etc/letsencrypt/live/app.example.com/privkey.pem', key);
  text = replaceOnce(text, '/var/log/nginx/sitehall.access.log', path.join(dir, 'access.log'));
  text = replaceOnce(text, '/var/log/nginx/sitehall.error.log', path.join(dir, 'error.log'));
  const servers = /( *)server 127\.0\.0\.1:3001 ([^;]*);\n(?:\1server 127\.0\.0\.1:300\d [^;]*;\n)*/;
  const match = servers.exec(text);
  if (!match) throw new Error('deploy/nginx/sitehall.conf no longer lists the instances 127.0.0.1:3001…');
  const lines = upstreamPorts.map((p) => `${match[1]}server 127.0.0.1:${p} ${match[2]};\n`).join('');
  return text.replace(servers, lines);
}

/** A self-signed certificate for the example hosts (app, sites, *.sites). */
export function makeCertificate(dir) {
  const cert = path.join(dir, 'cert.pem');
  const key = path.join(dir, 'key.pem');
  const res = spawnSync('openssl', [
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    key,
    '-out',
    cert,
    '-days',
    '2',
    '-subj',
    '/CN=app.example.com',
    '-addext',
    'subjectAltName=DNS:app.example.com,DNS:sites.example.com,DNS:*.sites.example.com',
  ]);
  if (res.status !== 0) throw new Error(`openssl failed: ${res.stderr}`);
  return { cert, key };
}

/**
 * Starts nginx (not as a daemon) on the rendered config; resolves once it answers on httpPort.
 * Returns the child process; `workers` sets worker_processes, `cpu` pins it with taskset.
 */
/** A port nothing listens on right now. */
export async function freePort() {
  const net = await import('node:net');
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

export async function startNginx({ dir, conf, httpPort, workers = 1, cpu }) {
  if (!NGINX) throw new Error('nginx is not installed (apt-get install nginx-light)');
  fs.chmodSync(dir, 0o755);
  fs.writeFileSync(path.join(dir, 'sitehall.conf'), conf);
  const temp = (name) => `${name} ${path.join(dir, name)};`;
  fs.writeFileSync(
    path.join(dir, 'nginx.conf'),
    [
      `worker_processes ${workers};`,
      `pid ${path.join(dir, 'nginx.pid')};`,
      `error_log ${path.join(dir, 'nginx-error.log')} warn;`,
      'events { worker_connections 1024; }',
      'http {',
      '  access_log off;',
      `  ${temp('client_body_temp_path')}`,
      `  ${temp('proxy_temp_path')}`,
      `  ${temp('fastcgi_temp_path')}`,
      `  ${temp('uwsgi_temp_path')}`,
      `  ${temp('scgi_temp_path')}`,
      `  include ${path.join(dir, 'sitehall.conf')};`,
      '}',
      '',
    ].join('\n'),
  );
  const errorLog = path.join(dir, 'nginx-error.log');
  const args = ['-p', dir, '-e', errorLog, '-c', path.join(dir, 'nginx.conf'), '-g', 'daemon off;'];
  const child =
    cpu === undefined
      ? spawn(NGINX, args, { stdio: 'inherit' })
      : spawn('taskset', ['-c', cpu, NGINX, ...args], { stdio: 'inherit' });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) break;
    const up = await fetch(`http://127.0.0.1:${httpPort}/`, { redirect: 'manual' }).then(
      () => true,
      () => false,
    );
    if (up)
      return {
        process: child,
        stop: async () => {
          if (child.exitCode === null) child.kill('SIGTERM');
          await exited;
        },
      };
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  const log = fs.existsSync(errorLog) ? fs.readFileSync(errorLog, 'utf8').slice(-2000) : '';
  throw new Error(`nginx did not start: ${log}`);
}
