/**
 * No stored-file fault may end the process (issue 13 item 1): on every route that streams blobs —
 * site files (the Fastify route and the fast path's connections), previews, the project download
 * as owner and as admin, backups — a blob that vanishes between listing and reading, or a read
 * that fails after N bytes (test/support/faulty-blob-store.ts), ends that one response cleanly: a
 * 404 when nothing was sent yet, an aborted response when it had begun (never a zip that looks
 * complete). On S3 storage the same holds when a TCP proxy cuts the store's connections
 * mid-answer. The app runs inside this test process, so an error event nobody listens to would be
 * an uncaught exception here: each test checks none happened, and that the server serves on. Last,
 * main.ts logs an error that slips through anyway before the process exits.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { backup } from '../src/backup/backup.js';
import { loadConfig } from '../src/config.js';
import { LocalBlobStore } from '../src/storage/index.js';
import { startTcpProxy, type TcpProxy } from './faults/tcp-proxy.js';
import {
  ADMIN_PASSWORD,
  createTestApp,
  listenPort,
  listTree,
  liveProject,
  type TestApp,
  tempDir,
  type UploadFile,
  uploadProject,
  usingPostgres,
} from './helpers.js';
import { FaultyBlobStore, InjectedReadError } from './support/faulty-blob-store.js';
import { type LocalS3, startS3rver } from './support/s3rver.js';

const KB = 1024;
const MB = 1024 * KB;
/** A PDF of `size` random bytes: not compressible, and unique, so no other file shares its blob. */
const pdf = (size: number) => Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(size - 9)]);
const page = (text: string) => `<!doctype html><title>${text}</title><h1>${text}</h1>`;
/** The zip end-of-central-directory signature: a zip without it is visibly cut off. */
const ZIP_END = Buffer.from([0x50, 0x4b, 0x05, 0x06]);

interface StreamedResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The whole body arrived and the response ended as HTTP says it should. */
  complete: boolean;
}

/**
 * A GET over a real socket that reports how the response ended rather than failing on a cut one.
 * `whileHeld` runs once the head has arrived, with the body held back until it resolves.
 */
function get(
  port: number,
  url: string,
  opts: { headers?: Record<string, string>; agent?: http.Agent; whileHeld?: () => Promise<void> } = {},
): Promise<StreamedResponse> {
  return new Promise((resolve, reject) => {
    const req = http.get(
      { host: '127.0.0.1', port, path: url, headers: opts.headers, agent: opts.agent ?? false },
      (res) => {
        const chunks: Buffer[] = [];
        let settled = false;
        const settle = (complete: boolean) => {
          if (settled) return;
          settled = true;
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks),
            complete,
          });
        };
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => settle(res.complete));
        res.on('error', () => settle(false));
        res.on('close', () => settle(res.complete));
        if (opts.whileHeld) {
          res.pause();
          opts.whileHeld().then(() => res.resume(), reject);
        }
      },
    );
    req.on('error', reject);
  });
}

/**
 * A GET on a socket of its own, read until the server closes it: the head's Content-Length and
 * every byte that came after the head, so bytes sent past the declared length are seen (an HTTP
 * client stops at the length, and a proxy keeping the connection would read them as the start of
 * the next answer).
 */
function getRaw(port: number, url: string): Promise<{ status: number; declared: number; received: number }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () =>
      socket.write(`GET ${url} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`),
    );
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => {});
    socket.on('close', () => {
      const all = Buffer.concat(chunks);
      const end = all.indexOf('\r\n\r\n');
      if (end === -1) return reject(new Error(`no head: ${all.toString().slice(0, 200)}`));
      const head = all.subarray(0, end).toString();
      resolve({
        status: Number(/^HTTP\/1\.1 (\d+)/.exec(head)?.[1]),
        declared: Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? Number.NaN),
        received: all.length - end - 4,
      });
    });
  });
}

/**
 * Errors nothing handled while the enclosing describe block runs: thrown ones (an 'error' event
 * without a listener) and unhandled rejections. Vitest reports them too, but not as the test's.
 */
function watchUncaught(): unknown[] {
  const seen: unknown[] = [];
  const record = (error: unknown) => seen.push(error);
  beforeAll(() => {
    process.on('uncaughtExceptionMonitor', record);
    process.on('unhandledRejection', record);
  });
  afterAll(() => {
    process.off('uncaughtExceptionMonitor', record);
    process.off('unhandledRejection', record);
  });
  return seen;
}

describe('stream faults', () => {
  let t: TestApp;
  let store: FaultyBlobStore;
  let port: number;
  const uncaught = watchUncaught();

  beforeAll(async () => {
    t = await createTestApp(
      {},
      {
        store: (config) =>
          (store = new FaultyBlobStore(LocalBlobStore.inDataDir(config.dataDir, { durable: false }))),
      },
    );
    port = await listenPort(t);
  });
  afterEach(async () => {
    store.heal();
    expect(uncaught).toEqual([]);
    // The server serves on.
    const health = await get(port, '/healthz');
    expect(health.status).toBe(200);
  });
  afterAll(() => t.close());

  /** The blob behind a file of a project's newest version. */
  async function blobOf(projectId: number, filePath: string): Promise<string> {
    const row = await t.ctx.db
      .selectFrom('deployment_files')
      .innerJoin('projects', 'projects.latest_deployment_id', 'deployment_files.deployment_id')
      .select('deployment_files.sha256')
      .where('projects.id', '=', projectId)
      .where('deployment_files.path', '=', filePath)
      .executeTakeFirstOrThrow();
    return row.sha256;
  }

  /** Asserts a response that had begun and was then cut off. */
  function expectCutOff(res: StreamedResponse, status: number, fullSize: number) {
    expect(res.status).toBe(status);
    expect(res.complete).toBe(false);
    expect(res.body.length).toBeLessThan(fullSize);
  }

  describe('site files', () => {
    const big = pdf(1536 * KB);
    const small = pdf(40 * KB);
    /** Over the memory limit and compressible: its brotli copy is made from a stream of the blob. */
    const script = `const data = ${JSON.stringify(randomBytes(700 * KB).toString('hex'))};\n`;
    let id: number;
    beforeAll(async () => {
      ({ id } = await liveProject(t, [
        { name: 'index.html', content: page('首页') },
        { name: 'media/big.pdf', content: big },
        { name: 'media/small.pdf', content: small },
        { name: 'js/app.js', content: script },
      ]));
    });

    it('a read that breaks mid-way cuts the response off (whole file and range); the next one is whole', async () => {
      const sha = await blobOf(id, 'media/big.pdf');
      store.breakAfter(sha, 256 * KB);
      const before = store.failedReads;
      expectCutOff(await get(port, `/sites/${id}/media/big.pdf`), 200, big.length);
      expectCutOff(
        await get(port, `/sites/${id}/media/big.pdf`, { headers: { range: 'bytes=1000-1400000' } }),
        206,
        1_399_001,
      );
      expect(store.failedReads).toBe(before + 2);
      store.heal();
      const whole = await get(port, `/sites/${id}/media/big.pdf`);
      expect(whole).toMatchObject({ status: 200, complete: true });
      expect(whole.body.equals(big)).toBe(true);
    });

    it('a compressed copy whose making breaks: the plain file is tried, and cut off when it breaks too', async () => {
      store.breakAfter(await blobOf(id, 'js/app.js'), 200 * KB);
      const failed = store.failedReads;
      const res = await get(port, `/sites/${id}/js/app.js`, { headers: { 'accept-encoding': 'br' } });
      expectCutOff(res, 200, script.length);
      expect(res.headers['content-encoding']).toBeUndefined();
      // One read to compress, one to send.
      expect(store.failedReads).toBe(failed + 2);
      await t.ctx.services.siteFiles.idle();
      expect(listTree(path.join(t.dataDir, 'blobs', '.tmp'))).toEqual([]);
      store.heal();
      const whole = await get(port, `/sites/${id}/js/app.js`, { headers: { 'accept-encoding': 'br' } });
      expect(whole).toMatchObject({ status: 200, complete: true });
      expect(whole.headers['content-encoding']).toBe('br');
      expect(zlib.brotliDecompressSync(whole.body).toString()).toBe(script);
    });

    it('a small file whose read breaks before it was ever sent: a complete error answer', async () => {
      store.breakAfter(await blobOf(id, 'media/small.pdf'), 10 * KB);
      const res = await get(port, `/sites/${id}/media/small.pdf`);
      expect(res.status).toBe(500);
      expect(res.complete).toBe(true);
      // A site address: the platform's page, not the API's JSON.
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.body.toString()).toContain('服务器内部错误，请稍后重试');
      expect(res.headers['content-security-policy']).toMatch(/^sandbox /);
      store.heal();
      const again = await get(port, `/sites/${id}/media/small.pdf`);
      expect(again.body.equals(small)).toBe(true);
    });

    it('a store answering a file with the wrong length, ending cleanly: 503, nothing of it kept or sent past its length', async () => {
      // Compressible files small enough for memory (one cut short, one too long), and one
      // streamed (over the memory limit).
      const script = (n: number) => `/* ${randomBytes(8).toString('hex')} */\n${'var a = 1;\n'.repeat(n)}`;
      const texts = { 'short.js': script(3000), 'long.js': script(3100) };
      const large = pdf(1200 * KB);
      const { id: other } = await liveProject(t, [
        { name: 'index.html', content: page('长度不对') },
        ...Object.entries(texts).map(([name, content]) => ({ name, content })),
        { name: 'large.pdf', content: large },
      ]);
      for (const [name, text] of Object.entries(texts)) {
        store.answerWithLength(await blobOf(other, name), name === 'short.js' ? 100 : text.length + 500);
        for (const encoding of ['identity', 'br', 'gzip']) {
          const res = await get(port, `/sites/${other}/${name}`, {
            headers: { 'accept-encoding': encoding },
          });
          expect(res).toMatchObject({ status: 503, complete: true });
          expect(res.body.toString()).toContain('文件存储暂时不可用，请稍后重试');
          expect(res.headers['retry-after']).toBe('5');
        }
        await t.ctx.services.siteFiles.idle();
        store.heal();
        // Neither the plain body in memory nor a compressed copy in the store was made of it.
        for (const encoding of ['identity', 'br', 'gzip']) {
          const res = await get(port, `/sites/${other}/${name}`, {
            headers: { 'accept-encoding': encoding },
          });
          expect(res).toMatchObject({ status: 200, complete: true });
          expect(res.headers['content-encoding']).toBe(encoding === 'identity' ? undefined : encoding);
          const body =
            encoding === 'br'
              ? zlib.brotliDecompressSync(res.body)
              : encoding === 'gzip'
                ? zlib.gunzipSync(res.body)
                : res.body;
          expect(body.toString()).toBe(text);
        }
      }
      const sha = await blobOf(other, 'large.pdf');
      // Cut short: cut off, never left waiting for bytes that don't come.
      store.answerWithLength(sha, 256 * KB);
      expectCutOff(await get(port, `/sites/${other}/large.pdf`), 200, large.length);
      // Too long: never a byte past the Content-Length (a proxy keeping the connection would
      // read them as the start of its next answer).
      store.answerWithLength(sha, large.length + 500);
      const raw = await getRaw(port, `/sites/${other}/large.pdf`);
      expect(raw).toMatchObject({ status: 200, declared: large.length });
      expect(raw.received).toBeLessThanOrEqual(large.length);
      store.heal();
      const whole = await get(port, `/sites/${other}/large.pdf`);
      expect(whole).toMatchObject({ status: 200, complete: true });
      expect(whole.body.equals(large)).toBe(true);
    });

    it('a blob gone since the file table was read: 404, sandboxed', async () => {
      const { id: other } = await liveProject(t, [
        { name: 'index.html', content: page('将消失') },
        { name: 'big.pdf', content: pdf(1200 * KB) },
      ]);
      store.vanishOnRead(await blobOf(other, 'big.pdf'));
      const res = await get(port, `/sites/${other}/big.pdf`);
      expect(res).toMatchObject({ status: 404, complete: true });
      // The same page as any missing file of a site.
      const missing = await get(port, `/sites/${other}/no-such-file.txt`);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body.equals(missing.body)).toBe(true);
      expect(res.headers['content-security-policy']).toMatch(/^sandbox /);
      expect(store.vanished).toBeGreaterThan(0);
    });

    it('the fast path: a kept-alive connection it answered is cut when a file it handed on breaks; new ones are answered', async () => {
      const fastPath = t.fastPath!;
      // The page in memory first (a first read goes through the route).
      expect((await get(port, `/sites/${id}/`)).status).toBe(200);
      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const answered = fastPath.connections.answered;
        const handedOff = fastPath.connections.handedOff;
        expect(await get(port, `/sites/${id}/`, { agent })).toMatchObject({ status: 200, complete: true });
        expect(fastPath.connections.answered).toBe(answered + 1);
        store.breakAfter(await blobOf(id, 'media/big.pdf'), 100 * KB);
        expectCutOff(await get(port, `/sites/${id}/media/big.pdf`, { agent }), 200, big.length);
        expect(fastPath.connections.handedOff).toBe(handedOff + 1);
      } finally {
        agent.destroy();
      }
      const fresh = new http.Agent({ keepAlive: true });
      try {
        const answered = fastPath.connections.answered;
        expect(await get(port, `/sites/${id}/`, { agent: fresh })).toMatchObject({
          status: 200,
          complete: true,
        });
        expect(fastPath.connections.answered).toBe(answered + 1);
      } finally {
        fresh.destroy();
      }
    });
  });

  describe('previews', () => {
    it('a broken read cuts the preview off; a vanished blob is a 404', async () => {
      const owner = await t.createUser();
      const big = pdf(1200 * KB);
      const up = await uploadProject(t, owner.token, {
        name: '预览项目',
        files: [
          { name: 'index.html', content: page('预览') },
          { name: 'big.pdf', content: big },
          { name: 'other.pdf', content: pdf(1100 * KB) },
        ],
      });
      expect(up.statusCode).toBe(201);
      const id = up.json().data.project.id as number;
      const token = await t.request({
        method: 'POST',
        url: `/api/projects/${id}/preview-token`,
        token: owner.token,
      });
      const previewUrl = token.json().data.preview_url as string;
      store.breakAfter(await blobOf(id, 'big.pdf'), 64 * KB);
      expectCutOff(await get(port, `${previewUrl}big.pdf`), 200, big.length);
      store.vanishOnRead(await blobOf(id, 'other.pdf'));
      expect(await get(port, `${previewUrl}other.pdf`)).toMatchObject({ status: 404, complete: true });
    });
  });

  describe('project download', () => {
    /** A live project: a large file first (the zip's order is by path), then a page. */
    async function downloadable() {
      const files: UploadFile[] = [
        { name: 'a-media.pdf', content: pdf(1536 * KB) },
        { name: 'b-index.html', content: page('下载') },
      ];
      const { id, owner } = await liveProject(t, files);
      return { id, owner, fullSize: files.reduce((sum, f) => sum + Buffer.byteLength(f.content), 0) };
    }

    it.each(['owner', 'admin'] as const)(
      'as %s: a read that breaks, or a blob that vanishes, aborts the zip; it never looks complete',
      async (who) => {
        const { id, owner, fullSize } = await downloadable();
        const url = who === 'owner' ? `/api/projects/${id}/download` : `/api/admin/projects/${id}/download`;
        const headers = { authorization: `Bearer ${who === 'owner' ? owner.token : await t.adminToken()}` };

        const whole = await get(port, url, { headers });
        expect(whole).toMatchObject({ status: 200, complete: true });
        expect(whole.body.includes(ZIP_END)).toBe(true);

        store.breakAfter(await blobOf(id, 'a-media.pdf'), 300 * KB);
        const broken = await get(port, url, { headers });
        expectCutOff(broken, 200, fullSize);
        expect(broken.body.includes(ZIP_END)).toBe(false);
        store.heal();

        // The second file is read once the first is sent: the answer has long begun.
        store.vanishOnRead(await blobOf(id, 'b-index.html'));
        const gone = await get(port, url, { headers });
        expectCutOff(gone, 200, Number.POSITIVE_INFINITY);
        expect(gone.body.includes(ZIP_END)).toBe(false);
        expect(store.vanished).toBeGreaterThan(0);
      },
    );

    it('a first blob gone: a 404 or a cut-off answer, never a zip', async () => {
      const { id, owner } = await downloadable();
      store.vanishOnRead(await blobOf(id, 'a-media.pdf'));
      const res = await get(port, `/api/projects/${id}/download`, {
        headers: { authorization: `Bearer ${owner.token}` },
      });
      if (res.status === 404) expect(res.complete).toBe(true);
      else expect(res).toMatchObject({ status: 200, complete: false });
      expect(res.body.includes(ZIP_END)).toBe(false);
    });

    it('the owner deletes the project while its download streams: the download is aborted', async () => {
      // The first file's read stalls part-way until the project is deleted, so the zip is still
      // being written then whatever the socket buffers hold (a loopback receive buffer can grow
      // to 32 MB); the page after it is read only once the delete has answered.
      const big = pdf(2 * MB);
      const { id, owner } = await liveProject(t, [
        { name: 'a-media.pdf', content: big },
        { name: 'b-index.html', content: page('边下载边删除') },
      ]);
      const release = store.holdAfter(await blobOf(id, 'a-media.pdf'), 256 * KB);
      const res = await get(port, `/api/projects/${id}/download`, {
        headers: { authorization: `Bearer ${owner.token}` },
        whileHeld: async () => {
          const del = await t.request({ method: 'DELETE', url: `/api/projects/${id}`, token: owner.token });
          expect(del.statusCode).toBe(200);
          release();
        },
      });
      expectCutOff(res, 200, big.length + 1000);
      expect(res.body.includes(ZIP_END)).toBe(false);
      expect((await t.request({ url: `/api/projects/${id}`, token: owner.token })).statusCode).toBe(404);
    });
  });

  describe('backup', () => {
    it('a read that breaks fails the backup with the error, leaving no blob half-copied', async () => {
      const { id } = await liveProject(t, [
        { name: 'index.html', content: page('备份') },
        { name: 'data.pdf', content: pdf(600 * KB) },
      ]);
      store.breakAfter(await blobOf(id, 'data.pdf'), 128 * KB);
      const dest = path.join(tempDir(), 'backup');
      // As the backup command sees it: a schema of its own is the URL's search_path.
      const { database } = t.config;
      const config =
        database.kind === 'postgres' && database.schema
          ? {
              ...t.config,
              database: {
                kind: 'postgres' as const,
                url: `${database.url}${database.url.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${database.schema}`)}`,
              },
            }
          : t.config;
      try {
        await expect(backup({ config, store, dest })).rejects.toBeInstanceOf(InjectedReadError);
        const blobs = listTree(path.join(dest, 'blobs')).filter((p) => /[0-9a-f]{64}$/.test(p));
        expect(blobs.map((p) => path.basename(p))).not.toContain(await blobOf(id, 'data.pdf'));
        expect(listTree(path.join(dest, 'blobs', '.tmp'))).toEqual([]);
      } finally {
        fs.rmSync(path.dirname(dest), { recursive: true, force: true });
      }
    });
  });
});

describe('stream faults on S3 storage (a connection cut mid-answer)', () => {
  let s3: LocalS3;
  let proxy: TcpProxy;
  let t: TestApp;
  let port: number;
  let id: number;
  let owner: { token: string };
  const big = pdf(1536 * KB);
  const uncaught = watchUncaught();

  beforeAll(async () => {
    s3 = await startS3rver();
    proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(s3.endpoint).port) });
    const { storage } = loadConfig({ ...s3.env, S3_ENDPOINT: `http://127.0.0.1:${proxy.port}` });
    t = await createTestApp({ storage });
    port = await listenPort(t);
    ({ id, owner } = await liveProject(t, [
      { name: 'a-media.pdf', content: big },
      { name: 'b-index.html', content: page('对象存储') },
    ]));
  });
  afterAll(async () => {
    await t?.close();
    await proxy?.close();
    await s3?.close();
  });

  it('the download and the site file are cut off, never complete; the server serves on', async () => {
    const download = () =>
      get(port, `/api/projects/${id}/download`, { headers: { authorization: `Bearer ${owner.token}` } });
    proxy.cutAfter(200 * KB);
    const zip = await download();
    expect(zip).toMatchObject({ status: 200, complete: false });
    expect(zip.body.includes(ZIP_END)).toBe(false);
    const file = await get(port, `/sites/${id}/a-media.pdf`);
    expect(file).toMatchObject({ status: 200, complete: false });
    expect(file.body.length).toBeLessThan(big.length);
    expect(proxy.cuts).toBeGreaterThanOrEqual(2);

    proxy.cutAfter(null);
    const whole = await download();
    expect(whole).toMatchObject({ status: 200, complete: true });
    expect(whole.body.includes(ZIP_END)).toBe(true);
    expect((await get(port, `/sites/${id}/a-media.pdf`)).body.equals(big)).toBe(true);
    expect(uncaught).toEqual([]);
  });
});

describe.skipIf(usingPostgres)('the last resort (main.ts)', () => {
  it('an error nothing handled is logged as fatal before the process exits', async () => {
    const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
    const dataDir = tempDir();
    // Stands in for an error event without a listener: thrown from a callback, out of any handler.
    const slip = `data:text/javascript,process.on('SIGUSR2', () => setImmediate(() => { throw new Error('slipped through'); }));`;
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'test',
      DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      ADMIN_PASSWORD,
      LOG_LEVEL: 'info',
      WEB_DIST: path.join(dataDir, 'no-web'),
    };
    delete env.DATABASE_URL;
    delete env.REDIS_URL;
    const child = spawn(
      process.execPath,
      ['--conditions=source', '--import', 'tsx', '--import', slip, path.join(repoRoot, 'server/src/main.ts')],
      { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    try {
      let out = '';
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes('SiteHall 已启动')) resolve();
        });
        exited.then(() => reject(new Error(`main.ts exited before listening: ${out}`)));
      });
      child.kill('SIGUSR2');
      expect(await exited).not.toBe(0);
      const lines = out
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { level: number; origin?: string; err?: { message?: string } });
      expect(lines.find((line) => line.level === 60)).toMatchObject({
        origin: 'uncaughtException',
        err: { message: 'slipped through' },
      });
    } finally {
      child.kill('SIGKILL');
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }, 240_000);
});
