/**
 * deploy/nginx/sitehall.conf (run by Debian's nginx, as in server/test/nginx.test.ts) when what is
 * behind it fails (docs/deploy.md §5 "Retries", docs/decisions/faults.md "The proxy passes outages on"):
 * - two instances on S3 (s3rver) and Redis, each reached through a TCP proxy the test cuts: with
 *   the bucket cut, requests that need it get the instances' 503 (never nginx's 502), and the
 *   showcase, the app and site files the instances hold in memory still answer 200 however many
 *   503s came before; with Redis cut or silent, visitors see no failure at all;
 * - two stand-ins for instances that reset the connection once a request has arrived (an instance
 *   killed mid-request): a read is tried on the other, a write (POST, PUT, PATCH, DELETE) never.
 * Under CI=true a missing nginx fails instead of skipping.
 */
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  freePort,
  makeCertificate,
  NGINX,
  renderSitehallConf,
  startNginx,
} from '../../../scripts/nginx-local.mjs';
import { loadConfig } from '../../src/config.js';
import { createTestApp, liveProject, rawRequest, type TestApp, tempDir } from '../helpers.js';
import { type ChildServer, startChildServer } from '../support/children.js';
import { type NginxAnswer, viaNginx } from '../support/nginx.js';
import { dropRedisPrefix, redisReachable, testRedisUrl, uniqueRedisPrefix } from '../support/redis.js';
import { type LocalS3, startS3rver } from '../support/s3rver.js';
import { eventually } from './support.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';

const ci = process.env.CI === 'true' || process.env.CI === '1';
const APP = 'app.example.com';

/** nginx on the shipped file in front of `ports`, in `work`; the way to reach it. */
async function nginxBefore(work: string, ports: number[]) {
  const httpsPort = await freePort();
  const httpPort = await freePort();
  const { cert, key } = makeCertificate(work);
  const conf = renderSitehallConf({ httpPort, httpsPort, upstreamPorts: ports, cert, key, dir: work });
  const nginx = await startNginx({ dir: work, conf, httpPort });
  return { nginx, target: { port: httpsPort, ca: fs.readFileSync(cert, 'utf8') } };
}

const withRedis = await redisReachable();

describe.skipIf((!NGINX || !withRedis) && !ci)('nginx in front of instances whose dependencies fail', () => {
  let t: TestApp;
  let s3: LocalS3;
  let s3Proxy: TcpProxy;
  let redisProxy: TcpProxy;
  const prefix = uniqueRedisPrefix();
  let work: string;
  const instances: ChildServer[] = [];
  let nginx: { stop(): Promise<void> } | undefined;
  let target: { port: number; ca: string };
  let siteHost: string;
  let ownerAuth: Record<string, string>;

  const get = (host: string, urlPath: string, headers: Record<string, string> = {}) =>
    viaNginx(target, host, urlPath, { headers });
  /** What a visitor and a signed-in user ask for that needs neither the bucket nor Redis. */
  const servable = (): Array<[string, () => Promise<NginxAnswer>]> => [
    ['showcase', () => get(APP, '/api/projects/public')],
    ['app shell', () => get(APP, '/dashboard')],
    ['app script', () => get(APP, '/assets/app-1234.js')],
    ['site page', () => get(siteHost, '/')],
    ['site stylesheet', () => get(siteHost, '/style.css')],
    ['my projects', () => get(APP, '/api/projects/my', ownerAuth)],
  ];
  const expectAllServed = async (round: string) => {
    for (const [what, ask] of servable()) {
      const res = await ask();
      expect(res.status, `${round}, ${what}: ${res.body.toString().slice(0, 200)}`).toBe(200);
    }
  };

  beforeAll(async () => {
    if (!NGINX) throw new Error('nginx is missing (CI=true): apt-get install nginx-light');
    s3 = await startS3rver();
    s3Proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(s3.endpoint).port) });
    const redis = new URL(testRedisUrl);
    redisProxy = await startTcpProxy({ host: redis.hostname, port: Number(redis.port || 6379) });
    // The reference app makes the database and the admin, and uploads the site (bucket reached
    // directly); the instances behind nginx reach the bucket and Redis through the proxies.
    t = await createTestApp({ storage: loadConfig(s3.env).storage });
    work = tempDir('sitehall-nginx-faults-');
    const webDist = path.join(work, 'web');
    fs.mkdirSync(path.join(webDist, 'assets'), { recursive: true });
    fs.writeFileSync(
      path.join(webDist, 'index.html'),
      '<!doctype html><title>站点展厅</title><div id="root"></div>',
    );
    fs.writeFileSync(path.join(webDist, 'assets', 'app-1234.js'), 'console.log("app")');
    const env = {
      ...s3.env,
      S3_ENDPOINT: `http://${s3Proxy.address}`,
      REDIS_URL: `redis://${redisProxy.address}`,
      REDIS_PREFIX: prefix,
      RENDER_WORKER: 'off',
      WEB_DIST: webDist,
      SITES_ORIGIN: 'https://sites.example.com',
      SITES_SUBDOMAINS: 'true',
      TRUST_PROXY: 'true',
    };
    for (let i = 0; i < 2; i++) {
      instances.push(await startChildServer({ dataDir: t.dataDir, database: t.config.database, env }));
    }
    const { id, owner } = await liveProject(t, [
      {
        name: 'index.html',
        content: '<!doctype html><link rel="stylesheet" href="style.css"><h1>经由 nginx</h1>',
      },
      { name: 'style.css', content: 'h1 { color: #333; }' },
      { name: 'cold.txt', content: '从未读过的文件' },
    ]);
    ownerAuth = { authorization: `Bearer ${owner.token}` };
    siteHost = `p${id}.sites.example.com`;
    // Each instance reads the page and the stylesheet once: from then on they are in its memory.
    for (const instance of instances) {
      for (const file of ['/', '/style.css']) {
        expect((await rawRequest(instance.port, file, { headers: { host: siteHost } })).status).toBe(200);
      }
    }
    ({ nginx, target } = await nginxBefore(
      work,
      instances.map((s) => s.port),
    ));
    // Two child processes, s3rver and nginx on a busy machine.
  }, 180_000);

  afterAll(async () => {
    s3Proxy?.restore();
    redisProxy?.restore();
    await nginx?.stop();
    for (const s of instances) await s.stop();
    await t?.close();
    await s3Proxy?.close();
    await redisProxy?.close();
    await s3?.close();
    await dropRedisPrefix(prefix);
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it('passes writes through whole: PUTs with their bodies (a deploy file over 1 MB) and a DELETE', async () => {
    const put = await viaNginx(target, APP, '/api/auth/profile', {
      method: 'PUT',
      headers: { ...ownerAuth, 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'via-nginx@example.com' }),
    });
    expect(put.status, put.body.toString()).toBe(200);
    expect(JSON.parse(put.body.toString()).data.user.email).toBe('via-nginx@example.com');
    const made = await viaNginx(target, APP, '/api/auth/tokens', {
      method: 'POST',
      headers: { ...ownerAuth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: '经由代理' }),
    });
    expect(made.status, made.body.toString()).toBe(201);
    const tokenId = JSON.parse(made.body.toString()).data.id as number;
    const gone = await viaNginx(target, APP, `/api/auth/tokens/${tokenId}`, {
      method: 'DELETE',
      headers: ownerAuth,
    });
    expect(gone.status, gone.body.toString()).toBe(200);
    // A digest deploy's file is a raw body up to the per-file limit, not the API's 1 MB.
    const file = Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(1536 * 1024)]);
    const sha256 = createHash('sha256').update(file).digest('hex');
    const started = await viaNginx(target, APP, '/api/deploys', {
      method: 'POST',
      headers: { ...ownerAuth, 'content-type': 'application/json' },
      body: JSON.stringify({ project_name: '经由代理部署', files: { 'index.pdf': sha256 } }),
    });
    expect(started.status, started.body.toString()).toBe(201);
    const deployId = JSON.parse(started.body.toString()).data.deploy_id as string;
    const sent = await viaNginx(target, APP, `/api/deploys/${deployId}/files/${sha256}`, {
      method: 'PUT',
      headers: { ...ownerAuth, 'content-type': 'application/octet-stream' },
      body: file,
    });
    expect(sent.status, sent.body.toString().slice(0, 200)).toBe(200);
  });

  it('bucket cut: what needs it is 503 from the instances, the rest stays 200 however many came before', async () => {
    s3Proxy.cut();
    try {
      // Every 503 used to count as an instance failure: three each and nginx answered 502 for all.
      await eventually(
        async () => (await get(siteHost, '/cold.txt')).status === 503,
        10_000,
        'cold file 503',
      );
      for (let i = 0; i < 8; i++) {
        const cold = await get(siteHost, '/cold.txt');
        expect(cold.status, `cold file ${i}: ${cold.body.toString().slice(0, 200)}`).toBe(503);
        expect(cold.body.toString()).toContain('文件存储暂时不可用');
      }
      for (let round = 0; round < 3; round++) await expectAllServed(`bucket cut, round ${round}`);
    } finally {
      s3Proxy.restore();
    }
    await eventually(async () => (await get(siteHost, '/cold.txt')).status === 200, 10_000, 'cold file back');
  });

  for (const mode of ['cut', 'blackhole'] as const) {
    it(`Redis ${mode}: visitors see no failure at all`, async () => {
      redisProxy[mode]();
      try {
        for (let round = 0; round < 5; round++) await expectAllServed(`Redis ${mode}, round ${round}`);
        // The instances do know: their own readiness names Redis.
        await eventually(
          async () => (await rawRequest(instances[0]!.port, '/readyz')).status === 503,
          10_000,
          'readyz names redis',
        );
        await expectAllServed(`Redis ${mode}, once noticed`);
      } finally {
        redisProxy.restore();
      }
      await eventually(
        async () => (await rawRequest(instances[0]!.port, '/readyz')).status === 200,
        10_000,
        'ready',
      );
    });
  }
});

describe.skipIf(!NGINX && !ci)('nginx in front of instances that die once a request arrived', () => {
  let work: string;
  let nginx: { stop(): Promise<void> } | undefined;
  let target: { port: number; ca: string };
  const seen: string[] = [];
  const fakes: http.Server[] = [];

  beforeAll(async () => {
    if (!NGINX) throw new Error('nginx is missing (CI=true): apt-get install nginx-light');
    work = tempDir('sitehall-nginx-resets-');
    const ports: number[] = [];
    for (const name of ['a', 'b']) {
      // Reads the whole request, then resets the connection: an instance killed with kill -9
      // after it began the work and before it answered.
      const fake = http.createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          seen.push(`${name} ${req.method} ${req.url}`);
          (res.socket as net.Socket | null)?.resetAndDestroy();
        });
      });
      await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
      fakes.push(fake);
      ports.push((fake.address() as net.AddressInfo).port);
    }
    // Each listed four times: every write below may fail one peer without nginx running out of
    // peers it has not marked failed (max_fails=3), so "seen once" is never "not tried at all".
    ({ nginx, target } = await nginxBefore(work, [...ports, ...ports, ...ports, ...ports]));
  });

  afterAll(async () => {
    await nginx?.stop();
    for (const fake of fakes) await new Promise((resolve) => fake.close(resolve));
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  const send = async (method: string, urlPath: string, body?: string) => {
    seen.length = 0;
    const res = await viaNginx(target, APP, urlPath, {
      method,
      ...(body ? { headers: { 'content-type': 'application/json' }, body } : {}),
    });
    return { status: res.status, seen: [...seen] };
  };

  it('a read is tried on another instance', async () => {
    const res = await send('GET', '/api/projects/public');
    expect(res.status).toBe(502);
    expect(res.seen).toHaveLength(2);
  });

  const writes: Array<[string, string, string?]> = [
    ['DELETE', '/api/projects/7'],
    ['DELETE', '/api/auth/tokens/3'],
    ['DELETE', '/api/admin/users/5'],
    ['PUT', '/api/auth/profile', '{"email":"a@example.com"}'],
    ['PUT', '/api/admin/config', '{}'],
    ['PUT', `/api/deploys/d1/files/${'a'.repeat(64)}`, 'bytes'],
    ['POST', '/api/projects/7/rollback', '{}'],
    ['PATCH', '/api/admin/users/5', '{}'],
  ];
  for (const [method, urlPath, body] of writes) {
    it(`${method} ${urlPath} is sent to one instance only`, async () => {
      const res = await send(method, urlPath, body);
      expect(res.status).toBe(502);
      expect(res.seen).toEqual([expect.stringMatching(new RegExp(`^[ab] ${method} `))]);
    });
  }
});
