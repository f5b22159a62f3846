/**
 * Real static sites work on the default install (docs/decisions.md "Serving sites"): sites built at
 * test time from npm packages in the dependency tree, zipped as shipped, uploaded, approved, and
 * opened in Chromium on the sites port. Each must render, its main interaction must work, and no
 * uncaught error may reach the page.
 */
import fs from 'node:fs';
import path from 'node:path';
import { type APIRequestContext, expect, type Page, test } from '@playwright/test';
import { ZipFile } from 'yazl';
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
  const owner = await createAccount(request, 'compat');
  const token = await apiToken(request, owner.username, owner.password);
  const res = await postZip(request, token, name, await zipOf(files));
  expect(res.status(), await res.text()).toBe(201);
  const { project } = (await res.json()).data;
  await review(request, project.id, 'approve');
  return project.id as number;
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
