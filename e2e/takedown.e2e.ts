/**
 * A site taken down is gone for the visitors who saw it too (docs/decisions/serving.md "Not live is
 * missing"): its pages are never kept past revalidation whatever its _headers ask, and on its own
 * origin the 404 clears what the site left in the browser, so a service worker that cached the
 * page stops answering for it.
 */
import { expect, test } from '@playwright/test';
import { E2E_PORT } from './env';
import { apiToken, createAccount } from './helpers';
import { review, uploadSite } from './site-helpers';

const SITES_PORT = E2E_PORT + 1;

const PAGE = `<!doctype html><html lang="zh-CN"><head><meta charset="utf-8"><title>离线优先</title></head>
<body><h1 id="word">第一版</h1><script>
  navigator.serviceWorker.register('sw.js').then(() => navigator.serviceWorker.ready)
    .then(() => { document.title = 'ready'; });
</script></body></html>`;

/** An offline-first worker: it keeps the page and answers from what it kept. */
const WORKER = `
self.addEventListener('install', (e) => { self.skipWaiting(); e.waitUntil(caches.open('v1').then((c) => c.addAll(['./']))); });
self.addEventListener('activate', (e) => e.waitUntil(self.clients.claim()));
self.addEventListener('fetch', (e) => { e.respondWith(caches.match(e.request).then((r) => r || fetch(e.request))); });
`;

test('a taken-down site stops answering from its visitors’ caches and service workers', async ({
  page,
  request,
}) => {
  test.setTimeout(180_000);
  const owner = await createAccount(request, 'offline');
  const token = await apiToken(request, owner.username, owner.password);
  const site = await uploadSite(request, token, `离线站点-${Date.now().toString(36).slice(-4)}`, {
    'index.html': PAGE,
    'sw.js': WORKER,
    'app.css': 'h1 { color: teal; }',
    // Asks a year of caching for everything: pages get revalidation all the same.
    _headers: '/*\n  Cache-Control: public, max-age=31536000, immutable\n',
  });
  await review(request, site.id, 'approve');

  const host = `p${site.id}.localhost:${SITES_PORT}`;
  const address = `http://${host}/`;
  // Node does not resolve *.localhost as Chromium does: the same request by address, named by Host.
  const fetchOnHost = (path: string) =>
    request.get(`http://127.0.0.1:${SITES_PORT}/${path}`, { headers: { host } });
  const first = await page.goto(address);
  expect(first?.headers()['cache-control']).toBe('no-cache');
  const css = await fetchOnHost('app.css');
  expect(css.headers()['cache-control']).toBe('public, max-age=31536000, immutable');
  await expect(page).toHaveTitle('ready');
  // Controlled by its worker now: the page comes from the worker's cache.
  const cached = await page.goto(address);
  expect(cached?.fromServiceWorker()).toBe(true);

  await review(request, site.id, 'takedown', '钓鱼页面');
  const gone = await fetchOnHost('');
  expect(gone.status()).toBe(404);
  expect(gone.headers()['clear-site-data']).toBe('"storage"');
  // The worker still answers the next visit; the browser's check of it (seconds after a visit
  // here; a day at most) gets the platform's worker, which unregisters itself and reloads the page.
  const stale = await page.goto(address);
  expect(stale?.fromServiceWorker()).toBe(true);
  const worker = await request.get(`http://127.0.0.1:${SITES_PORT}/sw.js`, {
    headers: { host, 'service-worker': 'script' },
  });
  expect(worker.status()).toBe(200);
  expect(await worker.text()).toContain('registration');
  await expect
    .poll(
      () =>
        page.evaluate(async () => (await navigator.serviceWorker.getRegistrations()).length).catch(() => -1),
      { timeout: 90_000, intervals: [1_000] },
    )
    .toBe(0);
  const after = await page.goto(address);
  expect(after?.status()).toBe(404);
  expect(after?.fromServiceWorker()).toBe(false);
  await expect(page.locator('#word')).toHaveCount(0);
});
