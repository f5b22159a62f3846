/**
 * The app's pages run the app's own scripts only (server/src/http/headers.ts): on a one-host
 * install an uploaded site's script is same-origin, so an HTML injection into an app page must not
 * be able to run one with the visitor's session.
 */
import { expect, test } from '@playwright/test';
import { apiToken, createAccount } from './helpers';
import { review, uploadSite } from './site-helpers';

test('an uploaded script injected into an app page is blocked, while the app itself runs', async ({
  page,
  request,
}) => {
  const owner = await createAccount(request, 'csp');
  const token = await apiToken(request, owner.username, owner.password);
  const site = await uploadSite(request, token, '脚本站点', {
    'index.html':
      '<!doctype html><html><head><title>脚本站点</title><script src="x.js"></script></head><body></body></html>',
    'x.js': 'window.__siteScriptRan = true; document.title = "站点脚本已运行";',
  });
  await review(request, site.id, 'approve');

  // The script is real and runs on its own (sandboxed) page.
  await page.goto(`/sites/${site.id}/`);
  await expect(page).toHaveTitle('站点脚本已运行');

  // An HTML injection: the server's real answer for an app page, its CSP and all, with tags added.
  await page.route('**/login', async (route) => {
    const response = await route.fetch();
    const injected = `<script src="/sites/${site.id}/x.js"></script><script>window.__inlineRan = true</script>`;
    await route.fulfill({ response, body: (await response.text()).replace('</head>', `${injected}</head>`) });
  });
  const blocked: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error' && message.text().includes('Content Security Policy'))
      blocked.push(message.text());
  });
  await page.goto('/login');

  // The app's own scripts (the entry, its preloads and lazy chunks) still run.
  await expect(page.getByRole('heading', { name: '登录站点展厅' })).toBeVisible();
  await expect(page).toHaveTitle(/登录/);
  expect(
    await page.evaluate(() => (window as { __siteScriptRan?: boolean }).__siteScriptRan),
  ).toBeUndefined();
  expect(await page.evaluate(() => (window as { __inlineRan?: boolean }).__inlineRan)).toBeUndefined();
  await expect.poll(() => blocked.some((text) => text.includes(`/sites/${site.id}/x.js`))).toBe(true);
  expect(blocked.some((text) => text.includes('inline script'))).toBe(true);
});
