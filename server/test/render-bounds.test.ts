/**
 * The render worker's bounds (docs/render.md) with Debian's real Chromium: with public assets
 * allowed, a page that asks for a loopback service in any address form (IPv4-mapped IPv6 and every
 * other IPv6 form that embeds IPv4 included) reaches nothing, and its picture cannot show it.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as deployments from '../src/repositories/deployments.js';
import { createTestApp, type TestApp, uploadProject } from './helpers.js';

const render = () => ({
  render: {
    enabled: true,
    chromiumPath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    pollMs: 200,
    loadTimeoutMs: 5_000,
    retryAfterMs: 0,
  },
});

/** A red picture, or a stylesheet that paints the page red: whatever the canary answers shows. */
async function canaryServer() {
  const red = await sharp({
    create: { width: 64, height: 64, channels: 3, background: { r: 255, g: 0, b: 0 } },
  })
    .png()
    .toBuffer();
  const hits: string[] = [];
  const handler: http.RequestListener = (req, res) => {
    hits.push(`${req.headers.host}${req.url}`);
    if (req.url?.endsWith('.css')) {
      res.writeHead(200, { 'content-type': 'text/css' });
      res.end('html, body { background: #f00 !important; }');
    } else {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(red);
    }
  };
  const v4 = http.createServer(handler);
  await new Promise<void>((r) => v4.listen(0, '127.0.0.1', r));
  const port = (v4.address() as AddressInfo).port;
  // The same port on IPv6 loopback, so ::1 forms have somewhere to land too.
  const v6 = http.createServer(handler);
  await new Promise<void>((r, reject) => v6.once('error', reject).listen(port, '::1', r)).catch(() => {});
  return {
    port,
    hits,
    close: async () => {
      for (const s of [v4, v6]) {
        s.closeAllConnections();
        await new Promise((r) => s.close(r));
      }
    },
  };
}

describe('render worker: public assets never reach inside', () => {
  let t: TestApp;
  let canary: Awaited<ReturnType<typeof canaryServer>>;
  beforeAll(async () => {
    canary = await canaryServer();
    t = await createTestApp(render());
    const res = await t.request({
      method: 'PUT',
      url: '/api/admin/config',
      token: await t.adminToken(),
      body: { render_allow_public_assets: true },
    });
    expect(res.statusCode).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
    await canary?.close();
  });

  it('refuses loopback in every address form: the canary gets nothing, the picture shows nothing of it', async () => {
    const p = canary.port;
    const forms = [
      `127.0.0.1:${p}`,
      `localhost:${p}`,
      `2130706433:${p}`,
      `0x7f.1:${p}`,
      `[::1]:${p}`,
      `[::ffff:127.0.0.1]:${p}`,
      `[::ffff:7f00:1]:${p}`,
      `[::127.0.0.1]:${p}`,
      `[::ffff:0:7f00:1]:${p}`,
      `[64:ff9b::7f00:1]:${p}`,
      `[2002:7f00:1::1]:${p}`,
      // Teredo whose client (the last 32 bits, inverted) is 127.0.0.1
      `[2001:0:4136:e378:8000:63bf:80ff:fffe]:${p}`,
    ];
    const tags = forms
      .map(
        (host, i) =>
          `<link rel="stylesheet" href="http://${host}/s${i}.css"><img src="http://${host}/i${i}.png" width="120" height="120">`,
      )
      .join('');
    const res = await uploadProject(t, (await t.createUser()).token, {
      name: '内网探测',
      files: [
        {
          name: 'index.html',
          content: `<!doctype html><html><head><meta charset="utf-8"></head><body style="background:#fff"><h1>探测</h1>${tags}</body></html>`,
        },
      ],
    });
    expect(res.statusCode).toBe(201);
    const project = await t.ctx.repositories.projects.byId(res.json().data.project.id);
    const deploymentId = project!.latest_deployment_id!;
    await t.ctx.services.render.idle();
    expect((await t.ctx.services.render.job(deploymentId))?.status).toBe('done');

    expect(canary.hits).toEqual([]);
    const d = await deployments.byId(t.ctx.db, deploymentId);
    const report = JSON.parse(d!.content_check!) as {
      runtime: { external_requests: Array<{ url: string; allowed: boolean }> };
    };
    const asked = report.runtime.external_requests;
    // Each form was asked for (Chromium writes some canonically) and none was loaded.
    expect(asked.length).toBeGreaterThanOrEqual(forms.length);
    expect(asked.every((r) => !r.allowed)).toBe(true);
    expect(asked.map((r) => r.url)).toEqual(
      expect.arrayContaining([
        `http://[::ffff:7f00:1]:${p}/i6.png`,
        `http://[64:ff9b::7f00:1]:${p}/i9.png`,
        `http://127.0.0.1:${p}/i2.png`,
      ]),
    );
    // Not one red pixel in the picture.
    const chunks: Buffer[] = [];
    for await (const c of await t.ctx.store.read(d!.thumbnail_sha256!)) chunks.push(c as Buffer);
    const { data } = await sharp(Buffer.concat(chunks))
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    let red = 0;
    for (let i = 0; i < data.length; i += 3)
      if (data[i]! > 200 && data[i + 1]! < 80 && data[i + 2]! < 80) red++;
    expect(red).toBe(0);
  }, 60_000);
});
