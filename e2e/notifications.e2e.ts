/**
 * Notices and the owner's analytics in Chromium (docs/notifications.md), at 1440×900 and 390×844:
 * the bell's unread count, the notices page (reason, link to the project, mark all read), the
 * admin's notice of a new upload, and the analytics card fed by real visits to the live site.
 */
import { expect, type Page, test } from '@playwright/test';
import { E2E_PORT } from './env';
import { ADMIN, apiToken, createAccount, signIn } from './helpers';
import { bearer, review, page as sitePage, uploadSite } from './site-helpers';

const noSidewaysScroll = (page: Page) =>
  expect
    .poll(() => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth))
    .toBe(true);

test('an owner is told of approval and takedown under the bell, reads them and sees the site’s analytics', async ({
  page,
  request,
}) => {
  const owner = await createAccount(request, 'notice');
  const ownerToken = await apiToken(request, owner.username, owner.password);
  const name = `通知站点${Date.now().toString(36)}`;
  const site = await uploadSite(request, ownerToken, name, sitePage(name, 'v1'));

  // The admin hears of the upload.
  await page.setViewportSize({ width: 1440, height: 900 });
  await signIn(page, ADMIN.username, ADMIN.password);
  await expect(page).not.toHaveURL(/\/login/);
  await page.goto('/notifications');
  const pending = page.getByTestId('notification').filter({ hasText: `「${name}」第 1 版等待审核` });
  await expect(pending).toBeVisible();
  await expect(page.getByRole('link', { name: /^通知（\d+ 条未读）$/ })).toBeVisible();
  await pending.getByRole('button', { name: '去审核' }).click();
  await expect(page).toHaveURL(new RegExp(`/admin/reviews/${site.id}$`));
  await page.context().clearCookies();
  await page.evaluate(() => {
    localStorage.clear();
    sessionStorage.clear();
  });

  await review(request, site.id, 'approve');
  // Real visits to the live site, one from a search engine.
  const sitesBase = `http://127.0.0.1:${E2E_PORT + 1}`;
  const visitor = await page.context().browser()!.newPage();
  await visitor.goto(`${sitesBase}/sites/${site.id}/`, { referer: 'https://www.search.example/q' });
  await expect(visitor.getByRole('heading', { name })).toBeVisible();
  await visitor.close();
  // Counted views are written every few seconds.
  await expect
    .poll(
      async () =>
        (
          await (
            await request.get(`/api/projects/${site.id}/analytics`, { headers: bearer(ownerToken) })
          ).json()
        ).data.top_pages.length,
      { timeout: 30_000 },
    )
    .toBe(1);
  await review(request, site.id, 'takedown', '含有违规内容');

  await page.goto('/login');
  await signIn(page, owner.username, owner.password);
  await expect(page).toHaveURL(/\/dashboard$/);
  const bell = page.getByRole('link', { name: '通知（2 条未读）' });
  await expect(bell).toBeVisible();
  await expect(bell).toHaveText('2');
  await bell.click();
  await expect(page).toHaveURL(/\/notifications$/);
  const items = page.getByTestId('notification');
  await expect(items).toHaveCount(2);
  await expect(items.first()).toContainText(`「${name}」已被管理员下线`);
  await expect(items.first()).toContainText('原因：含有违规内容');
  await expect(items.nth(1)).toContainText(`「${name}」审核通过，已上线`);
  await noSidewaysScroll(page);

  await items.first().getByRole('button', { name: '查看项目' }).click();
  await expect(page).toHaveURL(new RegExp(`/projects/${site.id}$`));
  await expect(page.getByRole('link', { name: '通知（1 条未读）' })).toBeVisible();

  // The analytics card: the page and the search engine that sent the visitor.
  const card = page.getByTestId('analytics-card');
  await card.scrollIntoViewIfNeeded();
  await expect(card.getByRole('cell', { name: '/index.html' })).toBeVisible();
  await expect(card.getByRole('cell', { name: 'www.search.example' })).toBeVisible();
  await expect(card.getByLabel(/最近 30 天访问量，共 1 次/)).toBeVisible();

  // On a phone: the bell, the notices and the analytics card fit the width.
  await page.setViewportSize({ width: 390, height: 844 });
  await noSidewaysScroll(page);
  await expect(card.getByRole('cell', { name: 'www.search.example' })).toBeVisible();
  await page.getByRole('link', { name: '通知（1 条未读）' }).click();
  await expect(items).toHaveCount(2);
  await noSidewaysScroll(page);
  const box = await items.first().boundingBox();
  expect(box!.width).toBeLessThanOrEqual(390);
  await page.getByRole('button', { name: /全部标为已读/ }).click();
  await expect(page.getByText('已全部标为已读')).toBeVisible();
  await expect(page.getByRole('link', { name: '通知', exact: true })).toBeVisible();
  await page.locator('.ant-segmented-item').filter({ hasText: /^未读/ }).click();
  await expect(page.getByText('没有未读通知')).toBeVisible();
});
