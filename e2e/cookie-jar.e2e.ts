/**
 * No site can lock a visitor out of the app (docs/decisions/serving.md "Site cookies never lock the app"):
 * a live site fills the browser's cookie jar as far as Chromium allows, and the app still works in
 * that browser (sign-in, API calls, pages, the admin taking that very site down). On the default
 * install cookies ignore ports, so the sites port's cookies reach the app port; with SITES_ORIGIN
 * the site sets them on the parent domain the app shares (app.sitehall.localhost and
 * sites.sitehall.localhost: Chromium resolves every *.localhost name to loopback).
 */
import { type Browser, expect, type PlaywrightWorkerArgs, test } from '@playwright/test';
import { freePort, startServer, stopServer } from './child-server';
import { ADMIN, apiToken, createAccount, signIn, untilStill } from './helpers';
import { review, uploadSite } from './site-helpers';

/** Sets 200 cookies of 4 KB (name and value) for a year: more than Chromium keeps per site. */
const bomb = (
  domain: string,
) => `<!doctype html><html lang="zh-CN"><head><meta charset="utf-8"><title>饼干</title></head>
<body><h1>饼干</h1><script>
  const pad = 'x'.repeat(4090);
  for (let i = 0; i < 200; i++) {
    document.cookie = 'c' + String(i).padStart(3, '0') + '=' + pad + '; max-age=31536000; path=/${domain ? `; domain=${domain}` : ''}';
  }
  document.title = 'done:' + document.cookie.length;
</script></body></html>`;

// A trace would copy the ~740 KB Cookie header of every request it records: minutes of a busy
// machine's time for nothing this file needs.
test.use({ trace: 'off' });
test.setTimeout(180_000);

async function fillTheJarThenUseTheApp(
  browser: Browser,
  playwright: PlaywrightWorkerArgs['playwright'],
  /** Where the API is reached from the test (127.0.0.1) and where the browser opens the app. */
  apiURL: string,
  appURL: string,
  cookieDomain: string,
): Promise<void> {
  const request = await playwright.request.newContext({ baseURL: apiURL });
  const context = await browser.newContext({ baseURL: appURL });
  try {
    const owner = await createAccount(request, 'cookie');
    const ownerToken = await apiToken(request, owner.username, owner.password);
    const site = await uploadSite(request, ownerToken, `饼干-${Date.now().toString(36).slice(-5)}`, {
      'index.html': bomb(cookieDomain),
    });
    await review(request, site.id, 'approve');

    // The visitor opens the live site (the app's address redirects to where sites are served).
    const page = await context.newPage();
    await page.goto(`/sites/${site.id}/`);
    await expect(page).toHaveTitle(/^done:/);
    const siteURL = page.url();
    const jar = await context.cookies();
    expect(jar.length).toBeGreaterThanOrEqual(150);
    expect(jar.reduce((n, c) => n + c.name.length + c.value.length, 0)).toBeGreaterThan(600_000);

    // The app, in the same browser: the page, sign-in and the admin's pages work, and the
    // browser did send the jar with them.
    const first = await page.goto('/login');
    expect(first?.status()).toBe(200);
    expect((await first!.request().allHeaders()).cookie?.length ?? 0).toBeGreaterThan(600_000);
    await signIn(page, ADMIN.username, ADMIN.password);
    await expect(page).toHaveURL(/dashboard/);
    await page.goto('/admin/projects');
    await page.getByRole('searchbox', { name: '搜索项目' }).fill(site.name);
    await page.getByRole('searchbox', { name: '搜索项目' }).press('Enter');
    const row = page.getByRole('row', { name: new RegExp(site.name) });
    await expect(row).toBeVisible();
    // The rows shown while the search loads are replaced by its answer: the menu is opened on the
    // row the answer drew, not on one about to go.
    await expect(page.locator('.ant-table-wrapper .ant-spin-spinning')).toHaveCount(0);

    // The admin takes the site down, from the browser the site filled. The dropdown is found by its
    // item: on a loaded machine `getByRole('menu').last()` could still be the admin's side menu when
    // its animations were counted, and the click then landed on an item still zooming in.
    await row.getByRole('button', { name: `审核操作 ${site.name}` }).click();
    const takeDown = page.getByRole('menuitem', { name: '下线', exact: true });
    await expect(takeDown).toBeVisible();
    await untilStill(page.getByRole('menu').filter({ has: takeDown }));
    await takeDown.click();
    await page.getByLabel('原因').fill('站点写入大量 Cookie，影响访客使用平台');
    await page.getByRole('button', { name: '确认下线' }).click();
    await expect(page.getByText('项目已下线')).toBeVisible();
    const gone = await page.goto(siteURL);
    expect(gone?.status()).toBe(404);
  } finally {
    await context.close();
    await request.dispose();
  }
}

test('a site that fills the cookie jar leaves the app working: the default sites port', async ({
  browser,
  playwright,
  baseURL,
}) => {
  await fillTheJarThenUseTheApp(browser, playwright, baseURL!, baseURL!, '');
});

test('a site that fills the cookie jar of the parent domain leaves the app working: SITES_ORIGIN', async ({
  browser,
  playwright,
}) => {
  const port = await freePort();
  const server = await startServer(port, {
    SITES_ORIGIN: `http://sites.sitehall.localhost:${port}`,
    SITES_SUBDOMAINS: 'false',
  });
  try {
    await fillTheJarThenUseTheApp(
      browser,
      playwright,
      `http://127.0.0.1:${port}`,
      `http://app.sitehall.localhost:${port}`,
      'sitehall.localhost',
    );
  } finally {
    await stopServer(server);
  }
});
