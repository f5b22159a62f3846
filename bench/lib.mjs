// Helpers the benchmarks share: the built server started and given a live site, test files, free
// ports, CPU pinning and wrk's figures.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs, { openSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { freePort } from '../scripts/nginx-local.mjs';

/** A loopback port nothing listens on right now (the one helper, shared with the nginx tests). */
export { freePort };

const root = path.resolve(import.meta.dirname, '..');

/** Servers on core 0, the load generator on core 1 (both on 0 on a one-core machine). */
export const SERVER_CPU = '0';
export const CLIENT_CPU = os.cpus().length > 1 ? '1' : '0';

/**
 * Writes every dirty page to the disk (sync(1)) and returns once it is written: called before a
 * timed side, so that no side's time or CPU includes the write-back of what the bench made for it
 * (a site folder written a moment before) or of what the side before it wrote (5,000 blobs), and
 * every round starts from the same clean page cache (docs/benchmarks.md "The disk settled before
 * each side").
 */
export function settleDisk() {
  const r = spawnSync('sync', { stdio: 'ignore' });
  if (r.status !== 0) throw new Error(`sync failed (${r.status ?? r.signal})`);
}

/** Exits with the install hint when a command the bench needs is missing. */
export function requireTools(tools, install) {
  for (const tool of tools) {
    if (spawnSync('which', [tool]).status !== 0) {
      console.error(`${tool} is needed: apt-get install -y ${install}`);
      process.exit(1);
    }
  }
}

/**
 * Resolves once url answers with a status below 500. Two minutes: a server pinned to one core of
 * a machine at load 40 takes more than 30 s to migrate a fresh database and hash the admin password.
 */
export async function waitFor(url, ms = 120_000) {
  const until = Date.now() + ms;
  for (;;) {
    try {
      if ((await fetch(url)).status < 500) return;
    } catch {}
    if (Date.now() > until) throw new Error(`${url} did not answer`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Child processes killed when the bench exits, however it exits. */
const children = [];
export function track(child) {
  children.push(child);
  return child;
}
export function stopChildren() {
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
}
process.on('exit', stopChildren);

export const BENCH_PASSWORD = 'bench-hall-keeper-lantern';

/**
 * The built server (server/dist) pinned to SERVER_CPU, started as `npm run serve` starts it, plus
 * BENCH_SERVER_ARGS (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"); resolves once /healthz answers.
 * Its stdout goes to the file BENCH_SERVER_LOG names, if any (e.g. with "--trace-gc").
 * SQLite in env.DATA_DIR unless env says otherwise. `cpus`: the cores it may use (taskset's list).
 */
export async function startServer(env, { cpus = SERVER_CPU } = {}) {
  const port = await freePort();
  // The sites port defaults to PORT + 1, which something else may hold: a free one of its own.
  const sitesPort = await freePort();
  const child = track(
    spawn(
      'taskset',
      [
        '-c',
        cpus,
        process.execPath,
        ...SERVER_NODE_ARGS,
        ...(process.env.BENCH_SERVER_ARGS?.split(' ').filter(Boolean) ?? []),
        path.join(root, 'server/dist/main.js'),
      ],
      {
        env: {
          ...process.env,
          PORT: String(port),
          SITES_PORT: String(sitesPort),
          HOST: '127.0.0.1',
          DATABASE_URL: '',
          ADMIN_PASSWORD: BENCH_PASSWORD,
          LOG_LEVEL: 'warn',
          NODE_ENV: 'production',
          ...env,
        },
        stdio: [
          'ignore',
          process.env.BENCH_SERVER_LOG ? openSync(process.env.BENCH_SERVER_LOG, 'w') : 'ignore',
          'inherit',
        ],
      },
    ),
  );
  const base = `http://127.0.0.1:${port}`;
  await waitFor(`${base}/healthz`);
  await waitForAdmin(base);
  // Where live sites are served on a default install: the app port only redirects /sites there.
  const sitesBase = `http://127.0.0.1:${sitesPort}`;
  return { child, port, base, sitesBase };
}

/**
 * Resolves once `admin` can sign in with `password`. A fresh server answers /healthz before it
 * has made its first admin (the password is hashed after listen), so a bench that signed in at once
 * sometimes got 401. A few tries at most: failed sign-ins count towards the login throttle.
 */
export async function waitForAdmin(base, password = BENCH_PASSWORD, ms = 30_000) {
  const until = Date.now() + ms;
  for (;;) {
    const res = await fetch(`${base}/api/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password }),
    });
    if (res.ok) return;
    if (res.status !== 401 || Date.now() > until) {
      throw new Error(`${base}: admin cannot sign in (${res.status} ${await res.text()})`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

/**
 * `api(method, url, { token, json, body })`: a call to the server's API that returns the envelope's
 * `data`, or throws with the status and the answer.
 */
export function apiClient(base) {
  return async (method, url, { token, json, body } = {}) => {
    const res = await fetch(`${base}${url}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(json ? { 'content-type': 'application/json' } : {}),
      },
      body: json ? JSON.stringify(json) : body,
    });
    const data = await res.json();
    if (!res.ok) throw new Error(`${base} ${method} ${url}: ${res.status} ${JSON.stringify(data)}`);
    return data.data;
  };
}

/** Uploads `files` as a zip through the server's API, approves it, and returns the project id. */
export async function publishSite(base, files, name) {
  const api = apiClient(base);
  const login = { username: 'admin', password: BENCH_PASSWORD };
  const { token } = await api('POST', '/api/auth/login', { json: login });
  const form = new FormData();
  form.append('project_name', name);
  form.append('files', new Blob([await makeZip(files)]), 'site.zip');
  const { project } = await api('POST', '/api/projects/upload', { token, body: form });
  await api('POST', `/api/admin/projects/${project.id}/review`, { token, json: { action: 'approve' } });
  return project.id;
}

/** About `bytes` of text that reads like a page or a script (`seed` varies it). */
export function siteText(bytes, seed) {
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
  ];
  let s = '';
  let i = seed;
  while (Buffer.byteLength(s) < bytes) s += `${words[i++ % words.length]} ${(i * 2654435761) % 9973} `;
  return Buffer.from(s)
    .subarray(0, bytes)
    .toString('utf8')
    .replace(/\uFFFD/g, '');
}

const PNG_HEAD = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
/** A file of `size` bytes that passes for a PNG (its header, then random bytes). */
export const png = (size) => Buffer.concat([PNG_HEAD, randomBytes(size - PNG_HEAD.length)]);

/**
 * wrk with one thread on CLIENT_CPU: requests/s, p99 (ms) and the number of requests. Throws on
 * any non-2xx/3xx answer, with the status one request gets now; with `only2xx`, on a redirect too
 * (a bench of files must not measure a redirect to them).
 */
export function wrk(url, { seconds, connections, headers = [], only2xx = false }) {
  const h = headers.flatMap((line) => ['-H', line]);
  if (only2xx) {
    const code = spawnSync('curl', ['-sk', '-o', '/dev/null', '-w', '%{http_code}', ...h, url], {
      encoding: 'utf8',
    }).stdout;
    if (!code.startsWith('2')) throw new Error(`${url}: answers ${code}, not a file`);
  }
  const r = spawnSync(
    'taskset',
    ['-c', CLIENT_CPU, 'wrk', '-t1', `-c${connections}`, `-d${seconds}s`, '--latency', ...h, url],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`wrk failed: ${r.stderr}`);
  const errors = /Non-2xx or 3xx responses: (\d+)/.exec(r.stdout)?.[1];
  if (errors) {
    const sample = spawnSync('curl', ['-sk', '-o', '/dev/null', '-w', '%{http_code}', ...h, url], {
      encoding: 'utf8',
    });
    throw new Error(`${url}: ${errors} error responses (one now: ${sample.stdout})`);
  }
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(r.stdout)?.[1]),
    p99: toMs(/\s99%\s+(\S+)/.exec(r.stdout)?.[1] ?? ''),
    requests: Number(/(\d+) requests in/.exec(r.stdout)?.[1]),
  };
}

/** A zip of { path: content } built in memory (bench sites are small). */
export async function makeZip(entries) {
  const { ZipFile } = await import('yazl');
  const zip = new ZipFile();
  for (const [p, c] of Object.entries(entries)) zip.addBuffer(Buffer.from(c), p);
  zip.end();
  const chunks = [];
  for await (const chunk of zip.outputStream) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/** wrk's latency ("850.00us", "1.20ms", "2.00s") in ms. */
export function toMs(value) {
  const m = /^([\d.]+)(us|ms|s)$/.exec(value);
  if (!m) return Number.NaN;
  const n = Number(m[1]);
  return m[2] === 'us' ? n / 1000 : m[2] === 's' ? n * 1000 : n;
}

export const pad = (s, n) => String(s).padStart(n);

/**
 * Node's options for the server, as `npm run serve` (and so `npm start`) gives them: the benches
 * measure the server as it is started.
 */
export const SERVER_NODE_ARGS = (() => {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  const m = /^node (.*?) ?server\/dist\/main\.js$/.exec(pkg.scripts.serve);
  if (!m) throw new Error('package.json scripts.serve is not "node [options] server/dist/main.js"');
  return m[1] ? m[1].split(' ') : [];
})();

// ---- Node's own ceiling ----------------------------------------------------------------------
/**
 * A bare node:http server answering the same URLs from memory with a comparable set of headers:
 * what any Node server can do on this machine, to tell SiteHall's cost from Node's.
 */
export async function startNodeFloor(prefix, files, work) {
  const port = await freePort();
  const file = path.join(work, 'floor.mjs');
  const routes = Object.fromEntries(
    Object.entries(files).map(([p, c]) => [
      `${prefix}${p === 'index.html' ? '' : p}`,
      Buffer.from(c).toString('base64'),
    ]),
  );
  fs.writeFileSync(
    file,
    `import http from 'node:http';
const routes = new Map(Object.entries(${JSON.stringify(routes)}).map(([k, v]) => [k, Buffer.from(v, 'base64')]));
http.createServer((req, res) => {
  const body = routes.get(req.url);
  if (!body) { res.statusCode = 404; res.end(); return; }
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.length, etag: '"x"', 'cache-control': 'public, max-age=300' });
  res.end(body);
}).listen(${port}, '127.0.0.1');
`,
  );
  const child = track(
    spawn('taskset', ['-c', SERVER_CPU, process.execPath, file], {
      stdio: ['ignore', 'ignore', 'inherit'],
    }),
  );
  const base = `http://127.0.0.1:${port}`;
  await waitFor(`${base}${prefix}`);
  return { base, pid: child.pid };
}

// ---- CPU time ---------------------------------------------------------------------------------
/**
 * CPU time (ms) used so far by a server: the process and its children (nginx's worker), all
 * threads. Other jobs on the machine slow the servers' clocks, not the CPU a request costs, so CPU
 * per request compares the servers even on a busy machine.
 */
const TICK_MS = 1000 / Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim() || 100);
export function cpuMs(pid) {
  let total = 0;
  const stack = [pid];
  while (stack.length > 0) {
    const p = stack.pop();
    try {
      const stat = fs.readFileSync(`/proc/${p}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += (Number(fields[11]) + Number(fields[12])) * TICK_MS;
      for (const task of fs.readdirSync(`/proc/${p}/task`)) {
        const kids = fs.readFileSync(`/proc/${p}/task/${task}/children`, 'utf8').trim();
        if (kids) stack.push(...kids.split(' ').map(Number));
      }
    } catch {}
  }
  return total;
}
