/**
 * Real static sites work on the default install (docs/decisions/serving.md "Serving sites"): sites built at
 * test time from npm packages in the dependency tree, zipped as shipped, uploaded, approved, and
 * opened in Chromium on the sites port. Each must render, its main interaction must work, and no
 * uncaught error may reach the page.
 */

import type { ChildProcess } from 'node:child_process';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { type APIRequestContext, expect, type Page, test } from '@playwright/test';
import { ZipFile } from 'yazl';
import { freePort, startServer, stopServer } from './child-server';
import { apiToken, createAccount } from './helpers';
import { bearer, review } from './site-helpers';

const NODE_MODULES = path.resolve('node_modules');

/** Every file under a folder, as [path inside the site, bytes]. */
function folder(dir: string, base = dir): Array<[string, Buffer]> {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return folder(full, base);
    return [[path.relative(base, full).split(path.sep).join('/'), fs.readFileSync(full)] as [string, Buffer]];
  });
}

function zipOf(files: Array<[string, Buffer]>): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const zip = new ZipFile();
    for (const [name, content] of files) zip.addBuffer(content, name);
    zip.end();
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on('error', reject);
  });
}

async function postZip(request: APIRequestContext, token: string, name: string, zip: Buffer) {
  return request.post('/api/projects/upload', {
    headers: bearer(token),
    multipart: {
      project_name: name,
      description: '兼容性测试',
      files: { name: `${name}.zip`, mimeType: 'application/zip', buffer: zip },
    },
    timeout: 60_000,
  });
}

/**
 * Uploads the site exactly as shipped (licence files, .scss and .d.ts sources and all: they are
 * kept as downloads only) and approves it.
 */
async function publish(request: APIRequestContext, name: string, files: Array<[string, Buffer]>) {
  return (await publishOwned(request, name, files)).id;
}

async function publishOwned(request: APIRequestContext, name: string, files: Array<[string, Buffer]>) {
  const owner = await createAccount(request, 'compat');
  const token = await apiToken(request, owner.username, owner.password);
  const res = await postZip(request, token, name, await zipOf(files));
  expect(res.status(), await res.text()).toBe(201);
  const { project } = (await res.json()).data;
  await review(request, project.id, 'approve');
  return { id: project.id as number, token };
}

/** Opens the live site from the app's address (it moves to the sites port) and collects page errors. */
async function openSite(page: Page, id: number, file = ''): Promise<string[]> {
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  await page.goto(`/sites/${id}/${file}`);
  // The default install: the sites port, an origin apart from the app's.
  expect(new URL(page.url()).origin).not.toBe(new URL(test.info().project.use.baseURL!).origin);
  return errors;
}

test('reveal.js, as its package ships it: the deck renders and a slide advances', async ({
  page,
  request,
}) => {
  const id = await publish(request, 'reveal.js', folder(path.join(NODE_MODULES, 'reveal.js')));
  const errors = await openSite(page, id);
  const present = page.locator('.reveal .slides > section.present');
  await expect(present).toHaveText('Slide 1');
  // Styled by its own theme (dist/theme/black.css): a dark background.
  expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(25, 25, 25)');
  await page.keyboard.press('ArrowRight');
  await expect(present).toHaveText('Slide 2');
  await expect(page).toHaveURL(/#\/1$/);
  expect(errors).toEqual([]);
});

const OPENAPI = {
  openapi: '3.0.3',
  info: { title: '宠物商店', version: '1.0.0', description: '兼容性测试用的接口文档' },
  paths: {
    '/pets': {
      get: {
        summary: '列出所有宠物',
        operationId: 'listPets',
        parameters: [
          { name: 'limit', in: 'query', description: '最多返回多少条', schema: { type: 'integer' } },
        ],
        responses: { '200': { description: '宠物列表' } },
      },
    },
  },
};

test('Swagger UI, as swagger-ui-dist ships it with the site’s own API document: an operation expands', async ({
  page,
  request,
}) => {
  const dir = path.join(NODE_MODULES, 'swagger-ui-dist');
  const files = folder(dir).map(([p, content]): [string, Buffer] =>
    // What its README says to do: point the initializer at your document.
    p === 'swagger-initializer.js'
      ? [p, Buffer.from(content.toString('utf8').replace(/url: "[^"]*"/, 'url: "openapi.json"'))]
      : [p, content],
  );
  files.push(['openapi.json', Buffer.from(JSON.stringify(OPENAPI))]);
  const id = await publish(request, 'swagger-ui', files);
  const errors = await openSite(page, id);
  await expect(page.getByRole('heading', { name: /宠物商店/ })).toBeVisible();
  const operation = page.locator('#operations-default-listPets');
  await operation.locator('.opblock-summary-control').click();
  await expect(operation.getByText('最多返回多少条')).toBeVisible();
  await expect(operation.getByRole('button', { name: 'Try it out' })).toBeVisible();
  expect(errors).toEqual([]);
});

/** What an offline-first app does at start: each kind of storage, a fetch of its own file, a service worker. */
const STORAGE_PAGE = `<!doctype html><html lang="zh-CN"><head><meta charset="utf-8"><title>存储</title></head>
<body><h1>本地存储</h1><pre id="result">运行中</pre>
<script>
  const result = {};
  const step = async (name, fn) => { try { result[name] = await fn(); } catch (e) { result[name] = 'error: ' + e; } };
  (async () => {
    await step('visits', () => {
      const n = Number(localStorage.getItem('visits') || 0) + 1;
      localStorage.setItem('visits', String(n));
      return n;
    });
    await step('session', () => { sessionStorage.setItem('k', 'v'); return sessionStorage.getItem('k'); });
    await step('cookie', () => { document.cookie = 'seen=1; path=/'; return document.cookie.includes('seen=1') ? 'ok' : 'missing'; });
    await step('indexedDB', () => new Promise((resolve, reject) => {
      const open = indexedDB.open('notes', 1);
      open.onupgradeneeded = () => open.result.createObjectStore('notes');
      open.onerror = () => reject(open.error);
      open.onsuccess = () => {
        const tx = open.result.transaction('notes', 'readwrite');
        tx.objectStore('notes').put('你好', 'greeting');
        tx.oncomplete = () => {
          const get = open.result.transaction('notes').objectStore('notes').get('greeting');
          get.onsuccess = () => resolve(get.result);
          get.onerror = () => reject(get.error);
        };
      };
    }));
    await step('fetch', async () => (await (await fetch('data.json')).json()).word);
    await step('serviceWorker', async () => {
      await navigator.serviceWorker.register('sw.js');
      const ready = await navigator.serviceWorker.ready;
      return ready.active ? 'active' : 'inactive';
    });
    document.getElementById('result').textContent = JSON.stringify(result);
  })();
</script></body></html>`;

test('a site that keeps its state in the browser: storage, cookies, IndexedDB, a service worker', async ({
  page,
  request,
}) => {
  const id = await publish(request, 'storage', [
    ['index.html', Buffer.from(STORAGE_PAGE)],
    ['data.json', Buffer.from(JSON.stringify({ word: '数据' }))],
    ['sw.js', Buffer.from("self.addEventListener('fetch', () => {});")],
  ]);
  const errors = await openSite(page, id);
  const result = page.locator('#result');
  await expect(result).not.toHaveText('运行中');
  expect(JSON.parse((await result.textContent()) ?? '{}')).toEqual({
    visits: 1,
    session: 'v',
    cookie: 'ok',
    indexedDB: '你好',
    fetch: '数据',
    serviceWorker: 'active',
  });
  // What it stored is there the next time.
  await page.reload();
  await expect(result).toHaveText(/"visits":2/);
  expect(errors).toEqual([]);
});

/** A history-routed app: its route is the path after the site's prefix, rendered by its script. */
const SPA_PAGE = `<!doctype html><html lang="zh-CN"><head><meta charset="utf-8"><title>单页应用</title></head>
<body><nav><a href="#" id="go">设置</a></nav><main id="view">加载中</main><script>
  const base = location.pathname.match(/^\\/sites\\/\\d+\\//)?.[0] ?? '/';
  function render() {
    const route = location.pathname.slice(base.length);
    document.getElementById('view').textContent = route === '' ? '首页' : '页面：' + route;
  }
  document.getElementById('go').addEventListener('click', (e) => {
    e.preventDefault();
    history.pushState(null, '', base + 'dashboard/settings');
    render();
  });
  render();
</script></body></html>`;

// ---- Cases run on the default install (by name and by IP address) and in subdomain mode ----------

/**
 * `default`: the default install at `http://localhost:…`, the README's address, where each site
 * gets an origin of its own (`p12.localhost` on the sites port). `by-ip`: the same install visited
 * by IP address, where sites share the sites port under `/sites/{id}/`. `subdomains`:
 * `SITES_ORIGIN` with `SITES_SUBDOMAINS`.
 */
type Mode = 'default' | 'by-ip' | 'subdomains';

/** What a case needs of the server it runs against. */
interface Setup {
  mode: Mode;
  /** The app's address. */
  baseURL: string;
  page: Page;
  request: APIRequestContext;
}

/**
 * A site whose client-side router reads the whole path (Docusaurus, VitePress built with their
 * default base '/') needs an origin of its own: served under /sites/{id}/ its router finds no route
 * for that path and draws its "Page Not Found". A visitor who came by IP address has no name that
 * could give each site an origin (docs/decisions/serving.md "Root-absolute builds on the default
 * install"), so there such a site needs SITES_ORIGIN with SITES_SUBDOMAINS; the case is skipped
 * there and runs in full by name and with subdomains.
 */
function needsOwnOrigin(s: Setup) {
  test.skip(
    s.mode === 'by-ip',
    'by IP address sites share the sites port under /sites/{id}/: a whole-path router needs an origin of its own',
  );
}

interface Opened {
  /** The site's root address as the visitor got it (`…/sites/12/` or `http://p12.sites.localhost:…/`). */
  root: URL;
  errors: string[];
  /** Requests that failed or were answered 4xx/5xx, as `STATUS URL`. */
  failed: string[];
}

/** Opens the live site from the app's address, following it to wherever it is served. */
async function open(s: Setup, id: number, file = ''): Promise<Opened> {
  const errors: string[] = [];
  const failed: string[] = [];
  s.page.on('pageerror', (err) => errors.push(err.message));
  s.page.on('requestfailed', (r) => failed.push(`failed ${r.url()} ${r.failure()?.errorText}`));
  s.page.on('response', (r) => {
    if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
  });
  const app = new URL(s.baseURL).origin;
  await s.page.goto(`/sites/${id}/`);
  const here = new URL(s.page.url());
  // Served apart from the app: the sites port, or the project's own host.
  expect(here.origin).not.toBe(app);
  if (s.mode === 'subdomains') expect(here.hostname).toBe(`p${id}.sites.localhost`);
  if (s.mode === 'default') expect(here.hostname).toBe(`p${id}.localhost`);
  if (s.mode === 'by-ip') expect(here.pathname).toBe(`/sites/${id}/`);
  const root = new URL(here.pathname.endsWith('/') ? here.href : `${here.href}/`);
  if (file) {
    // The root was only the way to the site's address (a site without index.html answers 404 there).
    failed.length = 0;
    await s.page.goto(new URL(file, root).href);
  }
  return { root, errors, failed };
}

const cases: Array<{ title: string; run: (s: Setup) => Promise<void> }> = [];
const both = (title: string, run: (s: Setup) => Promise<void>) => cases.push({ title, run });

both('a history-routed app reloads on a deep link once its owner turns on the SPA fallback', async (s) => {
  const { id, token } = await publishOwned(s.request, 'spa', [['index.html', Buffer.from(SPA_PAGE)]]);
  const { errors } = await open(s, id);
  await s.page.getByText('设置').click();
  await expect(s.page.locator('#view')).toHaveText('页面：dashboard/settings');
  // Off by default: the reload is the platform's 404.
  expect((await s.page.reload())?.status()).toBe(404);
  const on = await s.request.put(`/api/projects/${id}`, {
    headers: bearer(token),
    data: { spa_fallback: true },
  });
  expect(on.status(), await on.text()).toBe(200);
  expect((await s.page.reload())?.status()).toBe(200);
  await expect(s.page.locator('#view')).toHaveText('页面：dashboard/settings');
  expect(errors).toEqual([]);
});

both(
  'a site with _redirects and _headers: a redirect, its cache header, and cross-origin isolation',
  async (s) => {
    const id = await publish(s.request, 'rules', [
      [
        'index.html',
        Buffer.from(
          '<!doctype html><html><head><meta charset="utf-8"><title>规则</title></head><body><p id="iso"></p><script>document.getElementById("iso").textContent = String(crossOriginIsolated) + "," + typeof SharedArrayBuffer;</script></body></html>',
        ),
      ],
      [
        'new.html',
        Buffer.from(
          '<!doctype html><html><head><meta charset="utf-8"><title>新页面</title></head><body><h1>新页面</h1></body></html>',
        ),
      ],
      ['assets/app.css', Buffer.from('body { color: #333; }')],
      ['_redirects', Buffer.from('/old /new.html 301\n')],
      [
        '_headers',
        Buffer.from(
          '/*\n  Cross-Origin-Opener-Policy: same-origin\n  Cross-Origin-Embedder-Policy: require-corp\n/assets/*\n  Cache-Control: public, max-age=31536000, immutable\n',
        ),
      ],
    ]);
    const { root, errors } = await open(s, id);
    await expect(s.page.locator('#iso')).toHaveText('true,function');
    await s.page.goto(new URL('old', root).href);
    await expect(s.page.locator('h1')).toHaveText('新页面');
    expect(s.page.url()).toBe(new URL('new.html', root).href);
    // Asked by the page (a project's own host resolves in the browser, not in Node).
    const cacheControl = await s.page.evaluate(
      async (url) => (await fetch(url)).headers.get('cache-control'),
      new URL('assets/app.css', root).href,
    );
    expect(cacheControl).toBe('public, max-age=31536000, immutable');
    expect(errors).toEqual([]);
  },
);

both('a build with base "/" (root-absolute script, style and image addresses) works', async (s) => {
  const id = await publish(s.request, 'base-root', [
    [
      'index.html',
      Buffer.from(
        '<!doctype html><html><head><meta charset="utf-8"><title>根路径构建</title><link rel="stylesheet" href="/assets/index.css"><script type="module" src="/assets/index.js"></script></head><body><div id="app">未运行</div><img id="logo" src="/assets/logo.svg" alt="标志"></body></html>',
      ),
    ],
    ['assets/index.css', Buffer.from('#app { color: rgb(1, 2, 3); }')],
    [
      'assets/index.js',
      Buffer.from(
        "const data = await (await fetch('/data.json')).json();\ndocument.getElementById('app').textContent = data.word;\n",
      ),
    ],
    [
      'assets/logo.svg',
      Buffer.from(
        '<svg xmlns="http://www.w3.org/2000/svg" width="20" height="10"><rect width="20" height="10"/></svg>',
      ),
    ],
    ['data.json', Buffer.from(JSON.stringify({ word: '已运行' }))],
  ]);
  const { errors, failed } = await open(s, id);
  await expect(s.page.locator('#app')).toHaveText('已运行');
  await expect(s.page.locator('#app')).toHaveCSS('color', 'rgb(1, 2, 3)');
  await expect
    .poll(() => s.page.locator('#logo').evaluate((img: HTMLImageElement) => img.naturalWidth))
    .toBe(20);
  expect(errors).toEqual([]);
  expect(failed).toEqual([]);
});

// ---- Generated sites, built at test time (e2e/compat-sites/prepare.mjs) ------------------------

/**
 * The generators are 1,400 packages: a cold install and build is about 14 minutes, which CI's
 * 30-minute budget can't carry on a fresh machine. They run when COMPAT_GENERATORS=1
 * (docs/decisions/tests.md "Generated sites are built at test time").
 */
const GENERATORS = process.env.COMPAT_GENERATORS === '1';
function needsGenerators() {
  test.skip(!GENERATORS, 'generated sites (Docusaurus, VitePress, pdf.js): set COMPAT_GENERATORS=1');
}

let generated: Promise<Record<'docusaurus' | 'vitepress' | 'pdfjs', string>> | undefined;
/** The built sites' folders; the first call installs the generators and builds (minutes, once). */
function generatedSites() {
  generated ??= promisify(execFile)(process.execPath, ['e2e/compat-sites/prepare.mjs'], {
    maxBuffer: 1 << 20,
  }).then(({ stdout }) => JSON.parse(stdout));
  return generated;
}

/** A one-page PDF in Helvetica and ZapfDingbats, fonts a PDF may leave to the viewer (pdf.js's .pfb). */
function samplePdf(): Buffer {
  const stream = 'BT /F1 24 Tf 72 720 Td (SiteHall PDF) Tj ET BT /F2 24 Tf 72 680 Td (4) Tj ET';
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R /F2 6 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /ZapfDingbats >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

/** pdf.js's own simple viewer (its components example), pointed at the fonts and maps it ships. */
const PDF_VIEWER = `<!doctype html><html lang="zh-CN"><head><meta charset="utf-8"><title>PDF 查看器</title>
<link rel="stylesheet" href="pdf_viewer.css">
<style>#viewerContainer { overflow: auto; position: absolute; inset: 0; }</style></head>
<body><div id="viewerContainer"><div id="viewer" class="pdfViewer"></div></div>
<script type="module">
  import * as pdfjsLib from '../build/pdf.mjs';
  import { EventBus, PDFLinkService, PDFViewer } from './pdf_viewer.mjs';
  pdfjsLib.GlobalWorkerOptions.workerSrc = '../build/pdf.worker.mjs';
  const eventBus = new EventBus();
  const linkService = new PDFLinkService({ eventBus });
  const viewer = new PDFViewer({ container: document.getElementById('viewerContainer'), eventBus, linkService });
  linkService.setViewer(viewer);
  eventBus.on('pagesinit', () => { viewer.currentScaleValue = 'page-width'; });
  eventBus.on('textlayerrendered', () => { document.body.dataset.rendered = 'yes'; });
  const pdf = await pdfjsLib.getDocument({
    url: 'sample.pdf', cMapUrl: 'cmaps/', cMapPacked: true,
    standardFontDataUrl: 'standard_fonts/', useSystemFonts: false,
  }).promise;
  viewer.setDocument(pdf);
  linkService.setDocument(pdf, null);
</script></body></html>`;

both(
  'Docusaurus (classic template), built with its defaults: the home page renders and its router runs',
  async (s) => {
    needsGenerators();
    needsOwnOrigin(s);
    const dir = (await generatedSites()).docusaurus;
    const id = await publish(s.request, 'docusaurus', folder(dir));
    const { errors, failed } = await open(s, id);
    await expect(s.page.getByRole('heading', { level: 1, name: 'My Site' })).toBeVisible();
    // Hydrated: its router moves to a doc without loading a page.
    await s.page.evaluate(() => {
      (window as unknown as { stayed: boolean }).stayed = true;
    });
    await s.page.getByRole('link', { name: 'Docusaurus Tutorial - 5min ⏱️' }).click();
    await expect(s.page.getByRole('heading', { level: 1, name: 'Tutorial Intro' })).toBeVisible();
    expect(await s.page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(true);
    await expect(s.page.getByText('Page Not Found')).toHaveCount(0);
    expect(errors).toEqual([]);
    expect(failed).toEqual([]);
  },
);

both(
  'VitePress (default theme, as vitepress init writes it): the home page renders and its router runs',
  async (s) => {
    needsGenerators();
    needsOwnOrigin(s);
    const dir = (await generatedSites()).vitepress;
    const id = await publish(s.request, 'vitepress', folder(dir));
    const { errors, failed } = await open(s, id);
    await expect(s.page.locator('.VPHero .name')).toHaveText('VitePress 兼容性');
    await s.page.evaluate(() => {
      (window as unknown as { stayed: boolean }).stayed = true;
    });
    await s.page.locator('.VPHero').getByRole('link', { name: 'Markdown Examples' }).click();
    await expect(
      s.page.getByRole('heading', { level: 1, name: /Markdown Extension Examples/ }),
    ).toBeVisible();
    expect(await s.page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(true);
    expect(errors).toEqual([]);
    expect(failed).toEqual([]);
  },
);

both(
  'pdf.js’s viewer, with the .pfb fonts it ships: a PDF in standard fonts renders with its text',
  async (s) => {
    needsGenerators();
    const dir = (await generatedSites()).pdfjs;
    const files = folder(dir);
    files.push(['web/viewer.html', Buffer.from(PDF_VIEWER)], ['web/sample.pdf', samplePdf()]);
    const id = await publish(s.request, 'pdfjs', files);
    const fonts: string[] = [];
    s.page.on('response', (r) => {
      if (r.url().endsWith('.pfb'))
        fonts.push(`${r.status()} ${r.url().slice(r.url().lastIndexOf('/') + 1)}`);
    });
    const { errors, failed } = await open(s, id, 'web/viewer.html');
    await expect(s.page.locator('body')).toHaveAttribute('data-rendered', 'yes');
    await expect(s.page.locator('.textLayer')).toContainText('SiteHall PDF');
    expect(await s.page.locator('.page canvas').count()).toBeGreaterThan(0);
    // The fonts the page left to the viewer were fetched from the site, as shipped.
    // (pdf.js draws Helvetica with the Liberation .ttf it ships; ZapfDingbats only has its .pfb.)
    expect(fonts).toEqual(['200 FoxitDingbats.pfb']);
    expect(errors).toEqual([]);
    expect(failed).toEqual([]);
  },
);

test.describe('on the default install, at localhost', () => {
  test.beforeAll(async () => {
    // Minutes the first time on a machine (installed and built once, then cached), else a moment.
    test.setTimeout(40 * 60_000);
    if (GENERATORS) await generatedSites();
  });
  for (const c of cases) {
    test(c.title, async ({ browser, playwright, baseURL }) => {
      // The README's address: the same server, by name.
      const byName = baseURL!.replace('127.0.0.1', 'localhost');
      const request = await playwright.request.newContext({ baseURL: byName });
      const context = await browser.newContext({ baseURL: byName });
      try {
        await c.run({ mode: 'default', baseURL: byName, page: await context.newPage(), request });
      } finally {
        await context.close();
        await request.dispose();
      }
    });
  }
});

test.describe('on the default install, by IP address', () => {
  test.beforeAll(async () => {
    test.setTimeout(40 * 60_000);
    if (GENERATORS) await generatedSites();
  });
  for (const c of cases) {
    test(c.title, async ({ page, request, baseURL }) => {
      await c.run({ mode: 'by-ip', baseURL: baseURL!, page, request });
    });
  }
});

test.describe('with SITES_ORIGIN and SITES_SUBDOMAINS', () => {
  let server: ChildProcess | undefined;
  let baseURL = '';
  test.beforeAll(async () => {
    test.setTimeout(40 * 60_000);
    if (GENERATORS) await generatedSites();
    const port = await freePort();
    server = await startServer(port, {
      SITES_ORIGIN: `http://sites.localhost:${port}`,
      SITES_SUBDOMAINS: 'true',
    });
    baseURL = `http://127.0.0.1:${port}`;
  });
  test.afterAll(() => stopServer(server));
  for (const c of cases) {
    test(c.title, async ({ browser, playwright }) => {
      const request = await playwright.request.newContext({ baseURL });
      const context = await browser.newContext({ baseURL });
      try {
        await c.run({ mode: 'subdomains', baseURL, page: await context.newPage(), request });
      } finally {
        await context.close();
        await request.dispose();
      }
    });
  }
});
