/**
 * The render worker (docs/render.md) with Debian's real Chromium: pictures of the right size,
 * shown publicly once live, a page that hangs is failed after its retries, jobs survive a restart
 * and an outage, and without Chromium everything else works. One app (one browser) serves most
 * tests of the file. What a render finds in a page: render-findings.test.ts.
 */

import { executionAsyncId } from 'node:async_hooks';
import type { Readable } from 'node:stream';
import { messages } from '@sitehall/contracts';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { blobLeasesOn } from '../src/context.js';
import { runHere } from '../src/jobs/job-runner.js';
import { sweepLeftovers } from '../src/jobs/sweep.js';
import * as deploymentFiles from '../src/repositories/deployment-files.js';
import * as deployments from '../src/repositories/deployments.js';
import { createRenderJobsRepository } from '../src/repositories/render-jobs.js';
import { BlobGate } from '../src/storage/blob-gate.js';
import { LocalBlobStore } from '../src/storage/index.js';
import { eventually } from './faults/support.js';
import { startTcpProxy } from './faults/tcp-proxy.js';
import { createTestApp, restartTestApp, review, type TestApp } from './helpers.js';
import { FaultyBlobStore } from './support/faulty-blob-store.js';
import { bufferOf, html, render, reportOf, upload } from './support/render-app.js';
import { startS3rver } from './support/s3rver.js';

/** A store whose `put` (only the render's pictures use it) waits after storing while `hold` is set. */
class HoldingStore extends FaultyBlobStore {
  stored: string[] = [];
  hold: Promise<void> | null = null;
  override async put(source: Readable) {
    const result = await super.put(source);
    this.stored.push(result.sha256);
    await this.hold;
    return result;
  }
}

describe('render worker', () => {
  let t: TestApp;
  let owner: { token: string };
  beforeAll(async () => {
    t = await createTestApp(render({ loadTimeoutMs: 3_000 }));
    owner = await t.createUser();
  });
  afterAll(() => t.close());

  it('renders a site to two non-blank WebP pictures, shown publicly once the version is live', async () => {
    const site = await upload(
      t,
      owner.token,
      html(
        '<h1 style="font-size:80px;color:#c00">站点展厅</h1><p>你好</p>',
        '<link rel="stylesheet" href="style.css">',
      ),
      { 'style.css': 'body{background:#eef}' },
    );
    // The upload's answer did not wait for the render.
    expect((await t.ctx.services.render.job(site.deploymentId))?.status).toMatch(/queued|running/);
    await t.ctx.services.render.idle();
    const job = await t.ctx.services.render.job(site.deploymentId);
    expect(job).toMatchObject({ status: 'done', attempts: 1, error: null });
    const d = await deployments.byId(t.ctx.db, site.deploymentId);
    const large = await sharp(await bufferOf(t, d!.thumbnail_sha256!)).metadata();
    const small = await sharp(await bufferOf(t, d!.thumbnail_small_sha256!)).metadata();
    expect([large.format, large.width, large.height]).toEqual(['webp', 640, 400]);
    expect([small.format, small.width, small.height]).toEqual(['webp', 320, 200]);
    const stats = await sharp(await bufferOf(t, d!.thumbnail_sha256!)).stats();
    expect(Math.max(...stats.channels.map((c) => c.stdev))).toBeGreaterThan(5);
    expect((await reportOf(t, site.deploymentId)).runtime?.blank).toBe(false);

    // The owner sees the picture of the pending version; anonymous visitors do not.
    const mine = await t.request({ url: `/api/projects/${site.id}`, token: owner.token });
    const url = mine.json().data.project.thumbnail_url as string;
    expect(url).toBe(`/api/thumbnails/${d!.thumbnail_sha256}.webp`);
    expect((await t.request({ url })).statusCode).toBe(404);
    const own = await t.request({ url, token: owner.token });
    expect(own.statusCode).toBe(200);
    expect(own.headers['cache-control']).toBe('private, no-cache');

    // Live and public: anyone, revalidated with its ETag before each use.
    expect((await review(t, site.id, 'approve')).statusCode).toBe(200);
    const list = await t.request({ url: '/api/projects/public' });
    const card = list.json().data.projects.find((p: { id: number }) => p.id === site.id);
    expect(card.thumbnail_url).toBe(url);
    const pub = await t.request({ url });
    expect(pub.statusCode).toBe(200);
    expect(pub.headers['content-type']).toBe('image/webp');
    expect(pub.headers['cache-control']).toBe('public, no-cache');
    expect(pub.headers['x-content-type-options']).toBe('nosniff');
    expect(pub.headers.etag).toMatch(/^"[0-9a-f]{32}"$/);
    const again = await t.request({ url, headers: { 'if-none-match': String(pub.headers.etag) } });
    expect(again.statusCode).toBe(304);
    // A bad name is a plain 404, never a 500.
    expect((await t.request({ url: '/api/thumbnails/..%2f..%2fetc.webp' })).statusCode).toBe(404);

    // Going live queued a render of the live version; the orphan sweep keeps the pictures.
    await t.ctx.services.render.idle();
    await t.ctx.services.render.idle();
    expect(await t.ctx.store.stat(d!.thumbnail_sha256!)).not.toBeNull();
  });

  it('fails a page that hangs after two retries, with its reason, as a finding and on the review page', async () => {
    const site = await upload(t, owner.token, html('<p>卡住</p><script>for (;;) {}</script>'));
    await t.ctx.services.render.idle();
    const job = await t.ctx.services.render.job(site.deploymentId);
    expect(job).toMatchObject({ status: 'failed', attempts: 3 });
    expect(job!.error).toContain('超时');
    // A failed render is a finding, not silence.
    const report = await reportOf(t, site.deploymentId);
    const failed = report.findings.find((f) => f.rule === 'runtime.render-failed');
    expect(failed?.severity).toBe('medium');
    expect(failed?.message).toContain('超时');
    const detail = await t.request({ url: `/api/admin/projects/${site.id}`, token: await t.adminToken() });
    expect(detail.json().data.renders).toEqual([
      expect.objectContaining({ newest: true, live: false, state: 'failed', attempts: 3, error: job!.error }),
    ]);
    // The next site still renders (the hung browser was replaced).
    const next = await upload(t, owner.token, html('<h1>之后</h1>'));
    await t.ctx.services.render.idle();
    expect((await t.ctx.services.render.job(next.deploymentId))?.status).toBe('done');
  }, 240_000);

  it('leaves no async hook on between renders: serving pays nothing for playwright once it is done', async () => {
    // A promise reaction runs with async id 0 unless some async hook (playwright's zones, an
    // AsyncLocalStorage) is on in the process (docs/decisions/serving.md "No async hooks between renders").
    const probe = () =>
      new Promise<number>((resolve) => void Promise.resolve().then(() => resolve(executionAsyncId())));
    const site = await upload(t, owner.token, html('<h1>钩子</h1>'));
    await t.ctx.services.render.idle();
    expect((await t.ctx.services.render.job(site.deploymentId))?.status).toBe('done');
    expect(await probe()).toBe(0);
  });

  it('lets an admin render a project again', async () => {
    const site = await upload(t, owner.token, html('<h1>再来</h1>'));
    await t.ctx.services.render.idle();
    const res = await t.request({
      method: 'POST',
      url: `/api/admin/projects/${site.id}/render`,
      token: await t.adminToken(),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().data.queued).toBe(1);
    expect((await t.ctx.services.render.job(site.deploymentId))?.status).toMatch(/queued|running|done/);
    await t.ctx.services.render.idle();
    expect((await t.ctx.services.render.job(site.deploymentId))?.status).toBe('done');
    const user = await t.createUser();
    const refused = await t.request({
      method: 'POST',
      url: `/api/admin/projects/${site.id}/render`,
      token: user.token,
    });
    expect(refused.statusCode).toBe(403);
    const missing = await t.request({
      method: 'POST',
      url: '/api/admin/projects/999999/render',
      token: await t.adminToken(),
    });
    expect(missing.statusCode).toBe(404);
  });
});

describe('render jobs', () => {
  it('survive a restart: queued while the worker is off, rendered by the next start', async () => {
    let t = await createTestApp({ ...render(), render: { ...render().render, enabled: false } });
    try {
      const owner = await t.createUser();
      const site = await upload(t, owner.token, html('<h1>重启</h1>'));
      expect((await t.ctx.services.render.job(site.deploymentId))?.status).toBe('queued');
      t.config.render.enabled = true;
      t = await restartTestApp(t);
      await t.ctx.services.render.idle();
      expect((await t.ctx.services.render.job(site.deploymentId))?.status).toBe('done');
    } finally {
      await t.close();
    }
  });

  it('are taken by one holder at a time; an expired lease is taken over', async () => {
    const t = await createTestApp();
    try {
      const owner = await t.createUser();
      const site = await upload(t, owner.token, html('<h1>租约</h1>'));
      const jobs = createRenderJobsRepository();
      const at = new Date().toISOString();
      const later = new Date(Date.now() + 60_000).toISOString();
      const [a, b] = await Promise.all([
        jobs.take(t.ctx.db, 'a', at, later),
        jobs.take(t.ctx.db, 'b', at, later),
      ]);
      expect([a, b].filter(Boolean)).toHaveLength(1);
      expect((a ?? b)!.deployment_id).toBe(site.deploymentId);
      expect(await jobs.take(t.ctx.db, 'c', at, later)).toBeUndefined();
      const taken = await jobs.take(t.ctx.db, 'c', new Date(Date.now() + 61_000).toISOString(), later);
      expect(taken).toMatchObject({ holder: 'c', attempts: 2 });
      // The first holder's late answer changes nothing.
      expect(
        await jobs.settle(t.ctx.db, taken!.id, (a ?? b)!.holder!, { status: 'done', durationMs: 1 }, at),
      ).toBe(false);
    } finally {
      await t.close();
    }
  });

  it('without Chromium: uploads work, /readyz says so and stays ready', async () => {
    const t = await createTestApp(render({ chromiumPath: '/nonexistent/chromium' }));
    try {
      const owner = await t.createUser();
      const site = await upload(t, owner.token, html('<h1>无浏览器</h1>'));
      const ready = await t.request({ url: '/readyz' });
      expect(ready.statusCode).toBe(200);
      expect(ready.json().detail).toMatchObject({ render: 'chromium missing' });
      expect((await t.ctx.services.render.job(site.deploymentId))?.status).toBe('queued');
      const mine = await t.request({ url: `/api/projects/${site.id}`, token: owner.token });
      expect(mine.json().data.project.thumbnail_url).toBeNull();
    } finally {
      await t.close();
    }
  });
});

describe('render pictures and the orphan sweep', () => {
  it('a picture stored but not yet referenced is leased: a sweep elsewhere keeps it', async () => {
    let store!: HoldingStore;
    const t = await createTestApp(render(), {
      store: (config) => {
        store = new HoldingStore(LocalBlobStore.inDataDir(config.dataDir));
        return store;
      },
    });
    let release = () => {};
    try {
      const owner = await t.createUser();
      store.hold = new Promise<void>((r) => {
        release = r;
      });
      const site = await upload(t, owner.token, html('<h1 style="color:#06c">租约</h1>'));
      await eventually(async () => store.stored.length > 0, 30_000, 'the first picture stored');
      // Another instance's sweep (its own gate: only the leases in the database are shared).
      const { leases } = t.ctx.cluster;
      const elsewhere = new BlobGate({
        leases: blobLeasesOn(t.ctx.db, leases),
        store,
        unreferenced: (hashes, trx) => deploymentFiles.unreferenced(trx, hashes),
      });
      await sweepLeftovers({
        db: t.ctx.db,
        leases,
        gate: elsewhere,
        jobs: runHere,
        shared: true,
        store,
        dataDir: t.dataDir,
      });
      expect(await store.stat(store.stored[0]!)).not.toBeNull();
      release();
      store.hold = null;
      await t.ctx.services.render.idle();
      expect((await t.ctx.services.render.job(site.deploymentId))?.status).toBe('done');
      const d = await deployments.byId(t.ctx.db, site.deploymentId);
      expect(await store.stat(d!.thumbnail_sha256!)).not.toBeNull();
      expect(await store.stat(d!.thumbnail_small_sha256!)).not.toBeNull();
      // Referenced now, and no lease is left behind.
      expect(await t.ctx.db.selectFrom('blob_leases').selectAll().execute()).toEqual([]);
    } finally {
      release();
      await t.close();
    }
  }, 240_000);
});

describe('render jobs and a storage outage', () => {
  it('a render that meets an S3 outage waits, names the storage, and runs by itself once it is back', async () => {
    const s3 = await startS3rver();
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(s3.endpoint).port) });
    const { storage } = loadConfig({ ...s3.env, S3_ENDPOINT: `http://${proxy.address}` });
    const t = await createTestApp({ storage, ...render({ loadTimeoutMs: 3_000 }) });
    try {
      const owner = await t.createUser();
      // Stored while the bucket answers, rendered while it does not.
      await t.ctx.services.render.stop();
      const site = await upload(t, owner.token, html('<h1 style="color:#c00">存储中断</h1>'));
      proxy.cut();
      await eventually(async () => (await t.request({ url: '/readyz' })).statusCode === 503, 10_000);
      t.ctx.services.render.start();
      // Neither a navigation error nor a try used up: queued again, saying why.
      await eventually(
        async () => (await t.ctx.services.render.job(site.deploymentId))?.error != null,
        20_000,
        'the render meets the outage',
      );
      const waiting = await t.ctx.services.render.job(site.deploymentId);
      expect(waiting).toMatchObject({ status: 'queued', attempts: 0 });
      expect(waiting?.error).toBe(messages.render.storageUnavailable);

      proxy.restore();
      await eventually(
        async () => (await t.ctx.services.render.job(site.deploymentId))?.status === 'done',
        30_000,
        'rendered once the bucket is back',
      );
      const d = await deployments.byId(t.ctx.db, site.deploymentId);
      expect(await t.ctx.store.stat(d!.thumbnail_sha256!)).not.toBeNull();
      expect(await t.ctx.store.stat(d!.thumbnail_small_sha256!)).not.toBeNull();
    } finally {
      await t.close();
      await proxy.close();
      await s3.close();
    }
  }, 240_000);
});

describe('where a render opens the page', () => {
  it("opens it at the project's live address, as the install serves it", async () => {
    // Production's layout: each site at its own host under SITES_ORIGIN; the page can't tell the
    // render by where it runs (a kit that stole only away from a review host had been rated low).
    const t = await createTestApp({
      ...render({ loadTimeoutMs: 5_000 }),
      sitesOrigin: 'https://sites.example.cn',
      sitesSubdomains: true,
    });
    try {
      const owner = await t.createUser();
      const site = await upload(
        t,
        owner.token,
        html(
          '<h1>地址</h1>',
          "<script>fetch('https://where.example/w?' + encodeURIComponent(location.href + '|' + isSecureContext));</script>",
        ),
      );
      await t.ctx.services.render.idle();
      const report = await reportOf(t, site.deploymentId);
      expect(report.runtime?.external_requests.map((r) => decodeURIComponent(r.url))).toContain(
        `https://where.example/w?https://p${site.id}.sites.example.cn/|true`,
      );
    } finally {
      await t.close();
    }
  });
});
