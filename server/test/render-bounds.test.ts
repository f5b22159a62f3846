/**
 * The render worker's bounds (docs/render.md) with Debian's real Chromium: with public assets
 * allowed, a page that asks for a loopback service in any address form (IPv4-mapped IPv6 and every
 * other IPv6 form that embeds IPv4 included) reaches nothing, and its picture cannot show it; a
 * page that fills typed arrays or a huge canvas is ended near the renderer's memory limit (measured
 * from /proc here, apart from the watchdog) and becomes a risk finding, tried once; a browser whose
 * main process passes its own limit is ended with its renderers, and the next render has a new one.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { format, messages } from '@sitehall/contracts';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RenderBrowser } from '../src/render/browser.js';
import { RENDERER_MEMORY_LIMIT_BYTES, RenderMemoryWatchdog } from '../src/render/memory-watchdog.js';
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
          // A stylesheet too for the v4-mapped forms: the report keeps 20 requests, enough for these.
          `${i === 5 || i === 6 ? `<link rel="stylesheet" href="http://${host}/s${i}.css">` : ''}<img src="http://${host}/i${i}.png" width="120" height="120">`,
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
    const project = await t.ctx.repositories.projects.byId(t.ctx.db, res.json().data.project.id);
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
        `http://[::ffff:7f00:1]:${p}/s5.css`,
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
  }, 240_000);
});

/** The largest resident size any Chromium process below this one reached, sampled every 50 ms. */
function chromiumPeak() {
  let peak = 0;
  const parentOf = (pid: string): number | null => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    } catch {
      return null;
    }
  };
  const timer = setInterval(() => {
    for (const pid of fs.readdirSync('/proc')) {
      if (!/^[0-9]+$/.test(pid)) continue;
      let cmd = '';
      try {
        cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1');
      } catch {
        continue;
      }
      if (!cmd.includes('chromium')) continue;
      // Ours only: a descendant of this process (other tests' browsers are not).
      let up = parentOf(pid);
      for (let hops = 0; up !== null && up > 1 && up !== process.pid && hops < 10; hops++)
        up = parentOf(String(up));
      if (up !== process.pid) continue;
      try {
        const kb = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'latin1'))?.[1];
        if (kb) peak = Math.max(peak, Number(kb) * 1024);
      } catch {}
    }
  }, 50);
  return {
    stop: () => {
      clearInterval(timer);
      return peak;
    },
  };
}

describe('render worker: memory is bounded', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp(render());
  });
  afterAll(() => t?.close());

  const bombs = {
    'typed arrays': `const keep = [];
      (function grow() {
        const a = new Uint8Array(128 * 1024 * 1024); a.fill(7); keep.push(a);
        document.title = 'MB ' + keep.length * 128;
        if (keep.length < 24) setTimeout(grow, 0);
      })();`,
    'a huge canvas': `const keep = [];
      (function grow() {
        const c = document.createElement('canvas'); c.width = 16384; c.height = 8192;
        const g = c.getContext('2d'); g.fillStyle = '#c00'; g.fillRect(0, 0, c.width, c.height);
        keep.push(g.getImageData(0, 0, 4096, 4096));
        document.body.appendChild(c);
        if (keep.length < 6) setTimeout(grow, 0);
      })();`,
  };

  for (const [what, script] of Object.entries(bombs)) {
    it(`ends a page filling ${what} near the limit, once, as a risk finding`, async () => {
      const res = await uploadProject(t, (await t.createUser()).token, {
        name: '内存炸弹',
        files: [
          {
            name: 'index.html',
            content: `<!doctype html><html><head><meta charset="utf-8"></head><body><h1>内存</h1><script>${script}</script></body></html>`,
          },
        ],
      });
      expect(res.statusCode).toBe(201);
      const project = await t.ctx.repositories.projects.byId(t.ctx.db, res.json().data.project.id);
      const deploymentId = project!.latest_deployment_id!;
      const sampler = chromiumPeak();
      await t.ctx.services.render.idle();
      const peak = sampler.stop();

      const job = await t.ctx.services.render.job(deploymentId);
      expect(job).toMatchObject({ status: 'failed', attempts: 1 });
      expect(job!.error).toContain('内存超过 512 MB');
      // Not the 3 GB and more the page reaches unbounded: the limit and what a late sample lets
      // through. The page grows 128 MB (a canvas 512 MB) at a time, and on a loaded machine the
      // watchdog's 100 ms samples come late: 1.21 GB was seen once with two test runs side by side
      // (2026-11-30), so the bound is the limit and 1 GB. (No lower bound from this sampler: on a
      // loaded machine its 50 ms samples came seconds apart and last saw 395 MB. The watchdog kills
      // only a renderer it found past the limit, which the error above says it did.)
      expect(peak).toBeLessThan(RENDERER_MEMORY_LIMIT_BYTES + 1024 * 1024 * 1024);

      const d = await deployments.byId(t.ctx.db, deploymentId);
      const report = JSON.parse(d!.content_check!) as {
        level: string;
        findings: Array<{ rule?: string; kind: string; severity: string; category: string; message: string }>;
      };
      const finding = report.findings.find((f) => f.rule === 'runtime.memory');
      expect(finding).toMatchObject({ kind: 'runtime_memory', severity: 'high', category: 'risk' });
      expect(finding!.message).toContain('512 MB');
      expect(report.level).toBe('high');
      expect(d!.thumbnail_sha256).toBeNull();

      // The next page renders as usual.
      const next = await uploadProject(t, (await t.createUser()).token, {
        name: '之后',
        files: [{ name: 'index.html', content: '<!doctype html><h1>之后</h1>' }],
      });
      await t.ctx.services.render.idle();
      const nextProject = await t.ctx.repositories.projects.byId(t.ctx.db, next.json().data.project.id);
      expect((await t.ctx.services.render.job(nextProject!.latest_deployment_id!))?.status).toBe('done');
    }, 120_000);
  }
});

/** Whether a process still runs (a zombie left for init to reap does not). */
function running(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

describe("render worker: the browser's own memory is bounded", () => {
  /** Below what Chromium's main process holds once started (about 180 MB), so it is past it at once. */
  const LOW_LIMIT = 32 * 1024 * 1024;

  it('ends a browser whose main process passes its limit, renderers and all; the next render has a new one', async () => {
    const browser = new RenderBrowser(render().render.chromiumPath, { pagesBeforeRestart: () => 50 });
    try {
      const first = await browser.get();
      const page = await (await first.newContext()).newPage();
      await page.setContent('<h1>第一个</h1>');
      const cdp = await first.newBrowserCDPSession();
      const { processInfo } = (await cdp.send('SystemInfo.getProcessInfo')) as {
        processInfo: Array<{ type: string; id: number }>;
      };
      const main = processInfo.find((p) => p.type === 'browser')!.id;
      expect(processInfo.some((p) => p.type === 'renderer')).toBe(true);

      const watch = new RenderMemoryWatchdog({ browserLimitBytes: LOW_LIMIT }).watch(first);
      await expect.poll(() => first.isConnected(), { timeout: 10_000 }).toBe(false);
      expect(watch.killed()).toMatchObject({ process: 'browser', pid: main });
      expect(watch.killed()!.rssBytes).toBeGreaterThan(LOW_LIMIT);
      watch.stop();
      // Nothing of that browser is left running.
      const pids = processInfo.map((p) => p.id);
      await expect.poll(() => pids.filter(running), { timeout: 10_000 }).toEqual([]);

      const second = await browser.get();
      expect(second).not.toBe(first);
      const next = await (await second.newContext()).newPage();
      await next.setContent('<h1>第二个</h1>');
      expect(await next.textContent('h1')).toBe('第二个');
    } finally {
      await browser.close();
    }
  }, 60_000);

  it('tries a render again in a new browser when its browser was ended, and says why', async () => {
    const t = await createTestApp({ render: { ...render().render, browserMemoryLimitBytes: LOW_LIMIT } });
    try {
      const res = await uploadProject(t, (await t.createUser()).token, {
        name: '浏览器内存',
        files: [{ name: 'index.html', content: '<!doctype html><h1>普通页面</h1>' }],
      });
      expect(res.statusCode).toBe(201);
      const project = await t.ctx.repositories.projects.byId(t.ctx.db, res.json().data.project.id);
      await t.ctx.services.render.idle();
      // Every attempt's browser passed the lowered limit and was ended; the job ran out of attempts.
      const job = await t.ctx.services.render.job(project!.latest_deployment_id!);
      expect(job).toMatchObject({
        status: 'failed',
        attempts: 3,
        error: format(messages.render.browserMemoryExceeded, { limit: 32 }),
      });
      // Not the page's doing: no memory finding, the render's failure with its reason.
      const d = await deployments.byId(t.ctx.db, project!.latest_deployment_id!);
      const report = JSON.parse(d!.content_check!) as { findings: Array<{ rule?: string; message: string }> };
      expect(report.findings.map((f) => f.rule)).not.toContain('runtime.memory');
      expect(report.findings.find((f) => f.rule === 'runtime.render-failed')?.message).toContain(
        format(messages.render.browserMemoryExceeded, { limit: 32 }),
      );
    } finally {
      await t.close();
    }
  }, 120_000);
});
