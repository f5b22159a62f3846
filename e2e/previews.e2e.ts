/**
 * A preview of a build made with `base: '/'` (Vite's default): its page asks `/assets/…` at the
 * root of its host. On the shared sites host, under /preview/{token}/, those requests found nothing
 * (a sandboxed page sends no Referer the root rescue could follow), so the preview was blank while
 * the live site worked. A preview has a host of its own now, `pv-{token}.localhost` on the sites
 * port (docs/decisions/serving.md "Preview links").
 */
import { expect, test } from '@playwright/test';
import { E2E_PORT } from './env';
import { apiToken, createAccount } from './helpers';
import { bearer, uploadSite } from './site-helpers';

const SITES_PORT = E2E_PORT + 1;

test('a preview of a root-absolute build runs its scripts and loads its styles, still sandboxed', async ({
  page,
  request,
}) => {
  const owner = await createAccount(request, 'vite');
  const token = await apiToken(request, owner.username, owner.password);
  const site = await uploadSite(request, token, `预览应用-${Date.now().toString(36).slice(-4)}`, {
    'index.html': `<!doctype html><html lang="zh-CN"><head><meta charset="utf-8"><title>应用</title>
<link rel="stylesheet" href="/assets/index.css"><script type="module" src="/assets/index.js"></script></head>
<body><div id="app">加载中</div></body></html>`,
    'assets/index.js': `document.getElementById('app').textContent = '应用已运行';
try { localStorage.setItem('k', '1'); document.title = 'not sandboxed'; } catch { document.title = 'sandboxed'; }`,
    'assets/index.css': '#app { color: rgb(0, 128, 0); }',
  });
  const made = await request.post(`/api/projects/${site.id}/preview-token`, { headers: bearer(token) });
  expect(made.status()).toBe(200);
  const link = (await made.json()).data.preview_url as string;
  const tokenOf = /^\/preview\/([0-9a-f]{32})\/$/.exec(link)?.[1];
  expect(tokenOf).toBeDefined();
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  // As the CLI prints it (the app's address): the app port sends it to the preview's own host.
  await page.goto(`http://localhost:${E2E_PORT}${link}`);
  await expect(page).toHaveURL(`http://pv-${tokenOf}.localhost:${SITES_PORT}/`);
  await expect(page.locator('#app')).toHaveText('应用已运行');
  await expect(page.locator('#app')).toHaveCSS('color', 'rgb(0, 128, 0)');
  // Still the preview's sandbox: an opaque origin, no storage.
  await expect(page).toHaveTitle('sandboxed');
  expect(errors).toEqual([]);
});
