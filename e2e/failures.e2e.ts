/**
 * Failures are shown where the user is looking: an upload's failure message sits at the top of the
 * form, which the page has scrolled past to reach the 上传 button, at 1440×900 and on a 390×844
 * phone. The server's refusal is made real by the browser (a routed answer), the layout is Chromium's.
 * A lost connection (every request to the server aborted by the browser) says 无法连接服务器 at the
 * top of the window and recovers on its own once requests go through again; a missing site and a
 * preview link that no longer opens explain themselves on the sites port and lead to the showcase.
 */
import { expect, type Page, test } from '@playwright/test';
import { freePort, startServer, stopServer } from './child-server';
import { E2E_PORT } from './env';
import { apiToken, createAccount, signIn } from './helpers';
import { bearer, uploadSite } from './site-helpers';

async function inViewport(page: Page, selector: string) {
  const box = await page.locator(selector).boundingBox();
  const viewport = page.viewportSize()!;
  expect(box, `${selector} is drawn`).not.toBeNull();
  expect(box!.y).toBeGreaterThanOrEqual(0);
  expect(box!.y + box!.height).toBeLessThanOrEqual(viewport.height);
}

for (const size of [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
]) {
  test(`an upload failure is in view at ${size.width}×${size.height}`, async ({ page, request }) => {
    await page.setViewportSize(size);
    const account = await createAccount(request, 'fail');
    await signIn(page, account.username, account.password);
    await expect(page).toHaveURL(/\/dashboard$/);
    await page.goto('/upload');
    await page.getByLabel('项目名称').fill('会失败的上传');
    await page.getByTestId('file-input').setInputFiles({
      name: 'index.html',
      mimeType: 'text/html',
      buffer: Buffer.from('<h1>hello</h1>'),
    });
    await expect(page.getByText('index.html').first()).toBeVisible();
    // The suggested site name is in. Its address line takes its room empty or not: the buttons stay
    // where they were drawn (a click meant for 上传 had landed beside it as the address came).
    const siteNameField = page.getByLabel('站点名');
    await expect(siteNameField).not.toHaveValue('');
    const submitAt = async () =>
      (await page.getByRole('button', { name: '上传', exact: true }).boundingBox())?.y;
    await expect(page.getByText('访问地址：')).toBeVisible();
    const withAddress = await submitAt();
    await siteNameField.fill('');
    await expect(page.getByText('访问地址：')).toHaveCount(0);
    expect(await submitAt()).toBe(withAddress);
    await siteNameField.fill('will-fail-site');
    await expect(page.getByText('访问地址：')).toBeVisible();
    expect(await submitAt()).toBe(withAddress);
    await page.route('**/api/projects/upload', (route) =>
      route.fulfill({
        status: 507,
        contentType: 'application/json',
        body: JSON.stringify({ success: false, message: '服务器存储空间不足，请联系管理员' }),
      }),
    );
    const submit = page.getByRole('button', { name: '上传', exact: true });
    await submit.scrollIntoViewIfNeeded();
    await submit.click();
    await expect(page.locator('.upload-card__alert')).toContainText('服务器存储空间不足');
    // Waits for the scroll to settle, then the whole message is inside the viewport.
    await expect
      .poll(async () => (await page.locator('.upload-card__alert').boundingBox())?.y ?? -1)
      .toBeGreaterThanOrEqual(0);
    await inViewport(page, '.upload-card__alert');
  });
}

/** The server drops: every request to the app's API and code gets no answer. */
async function cutConnection(page: Page) {
  const cut = /\/(api|assets)\//;
  await page.route(cut, (route) => route.abort('connectionrefused'));
  return () => page.unroute(cut);
}

test('a lost connection while opening a page says so in view at 1440×900, and the page comes on its own', async ({
  page,
}) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto('/');
  await expect(page.getByRole('heading', { level: 1 })).toContainText('站点展厅');
  const restore = await cutConnection(page);
  await page.getByRole('navigation', { name: '主导航' }).getByRole('link', { name: '展厅' }).click();
  await expect(page.getByText('无法连接服务器')).toBeVisible();
  await inViewport(page, '.connection-notice');
  await expect(page.getByText('出现了一些问题')).toHaveCount(0);
  await restore();
  // No click, no reload: the page's code and its projects come once requests go through.
  await expect(page.getByRole('heading', { name: '项目展厅' })).toBeVisible();
  await expect(page.getByText('无法连接服务器')).toHaveCount(0);
  await expect(page.locator('.connection-notice')).toHaveCount(0);
});

test('on a 390×844 phone, ☰ without a connection shows the notice, keeps the page and opens once the server is back', async ({
  page,
}) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto('/');
  await expect(page.getByRole('heading', { level: 1 })).toContainText('站点展厅');
  const restore = await cutConnection(page);
  await page.getByRole('button', { name: '打开导航菜单' }).click();
  await expect(page.getByText('无法连接服务器')).toBeVisible();
  await inViewport(page, '.connection-notice');
  const box = await page.locator('.connection-notice').boundingBox();
  expect(box!.x).toBeGreaterThanOrEqual(0);
  expect(box!.x + box!.width).toBeLessThanOrEqual(390);
  await expect(page.getByText('出现了一些问题')).toHaveCount(0);
  await expect(page.getByRole('heading', { level: 1 })).toContainText('站点展厅');
  await restore();
  // The drawer asked for opens by itself, its links in it.
  const drawer = page.locator('.main-nav--vertical');
  await expect(drawer.getByRole('link', { name: '展厅' })).toBeVisible();
  await drawer.getByRole('link', { name: '展厅' }).click();
  await expect(page.getByRole('heading', { name: '项目展厅' })).toBeVisible();
});

test('a list whose data gets no answer says so at 390×844 and fills in on its own', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  // The app's code arrives; its API does not.
  const cut = /\/api\//;
  await page.route(cut, (route) => route.abort('connectionrefused'));
  await page.goto('/public');
  await expect(page.getByText('无法连接服务器')).toBeVisible();
  await inViewport(page, '.connection-notice');
  await page.unroute(cut);
  await expect(page.getByText(/^共 \d+ 个项目/)).toBeVisible();
  await expect(page.locator('.connection-notice')).toHaveCount(0);
});

test('a server that stops and comes back: the notice at 1440×900, then the page without a reload', async ({
  page,
}) => {
  test.setTimeout(300_000);
  const port = await freePort();
  let server = await startServer(port, {});
  try {
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(`http://127.0.0.1:${port}/`);
    await expect(page.getByRole('heading', { level: 1 })).toContainText('站点展厅');
    await stopServer(server);
    await page.getByRole('navigation', { name: '主导航' }).getByRole('link', { name: '展厅' }).click();
    await expect(page.getByText('无法连接服务器')).toBeVisible();
    await inViewport(page, '.connection-notice');
    await expect(page.getByText('出现了一些问题')).toHaveCount(0);
    server = await startServer(port, {});
    // The next probe finds it (every 10 s at most): the showcase's code and data come, no reload.
    await expect(page.getByRole('heading', { name: '项目展厅' })).toBeVisible({ timeout: 60_000 });
    await expect(page.getByText(/^共 \d+ 个项目/)).toBeVisible();
    await expect(page.locator('.connection-notice')).toHaveCount(0);
    expect(page.url()).toBe(`http://127.0.0.1:${port}/public`);
  } finally {
    await stopServer(server);
  }
});

const SITES = `http://127.0.0.1:${E2E_PORT + 1}`;

for (const size of [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
]) {
  test(`a missing site on the sites port explains and leads to the showcase at ${size.width}×${size.height}`, async ({
    page,
  }) => {
    await page.setViewportSize(size);
    const res = await page.goto(`${SITES}/sites/999999/`);
    expect(res?.status()).toBe(404);
    await expect(page.getByRole('heading', { name: '页面不存在' })).toBeVisible();
    await expect(page.getByText('页面不存在，或该站点尚未发布。')).toBeVisible();
    await expect(page.getByText('站点展厅').first()).toBeVisible();
    const back = page.getByRole('link', { name: '返回站点展厅' });
    await inViewport(page, 'a.back');
    await back.click();
    await expect(page).toHaveURL(`http://127.0.0.1:${E2E_PORT}/public`);
    await expect(page.getByRole('heading', { name: '项目展厅' })).toBeVisible();
  });
}

test('a preview link that no longer opens explains, keeps the sandbox and leads to the showcase', async ({
  page,
  request,
}) => {
  const owner = await createAccount(request, 'gone');
  const token = await apiToken(request, owner.username, owner.password);
  const site = await uploadSite(request, token, `预览失效-${Date.now().toString(36)}`, {
    'index.html': '<!doctype html><title>预览</title><p>预览内容</p>',
  });
  const link = async () => {
    const res = await request.post(`/api/projects/${site.id}/preview-token`, { headers: bearer(token) });
    expect(res.status(), await res.text()).toBe(200);
    return (await res.json()).data.preview_url as string;
  };
  // A new link ends the one made before it, as expiry does.
  const first = await link();
  await link();
  await page.setViewportSize({ width: 390, height: 844 });
  const res = await page.goto(first);
  expect(res?.status()).toBe(404);
  expect(res?.headers()['content-security-policy']).toMatch(/^sandbox /);
  await expect(page.getByRole('heading', { name: '预览链接已失效' })).toBeVisible();
  await expect(page.getByText('请向分享链接的人索取新的链接')).toBeVisible();
  await page.getByRole('link', { name: '返回站点展厅' }).click();
  await expect(page.getByRole('heading', { name: '项目展厅' })).toBeVisible();
});
