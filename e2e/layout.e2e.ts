/**
 * Pages at a phone's width (390 px) and a laptop's (1366 px) in Chromium: everything reachable
 * without a hidden sideways scroll, nothing covered by a bar, the side menu's panel the screen's
 * height on long pages.
 */
import { expect, type Locator, type Page, test } from '@playwright/test';
import { ADMIN, apiToken, createAccount, signIn } from './helpers';
import { uploadSite } from './site-helpers';

const PHONE = { width: 390, height: 844 };
const LAPTOP = { width: 1366, height: 768 };

/** Whether an element lies wholly inside the window, sideways. */
async function inViewSideways(page: Page, element: Locator) {
  const box = await element.boundingBox();
  const width = page.viewportSize()?.width ?? 0;
  return box !== null && box.x >= 0 && box.x + box.width <= width;
}

/** Whether an element's content is wider than its box (it scrolls, or would, sideways). */
const scrollsSideways = (element: Locator) => element.evaluate((el) => el.scrollWidth > el.clientWidth);

async function signInAs(page: Page, username: string, password: string) {
  await signIn(page, username, password);
  await expect(page).toHaveURL(/\/dashboard$/);
}

test('on a 390-pixel phone every filter of 我的项目 is in view, none scrolled out of sight', async ({
  page,
  request,
}) => {
  const owner = await createAccount(request, 'filters');
  await page.setViewportSize(PHONE);
  await signInAs(page, owner.username, owner.password);
  await page.goto('/projects');
  const filters = page.getByRole('radiogroup', { name: '按状态筛选' });
  await expect(filters).toBeVisible();
  for (const label of ['全部', '待审核', '已发布', '已拒绝', '已下线']) {
    const option = filters.locator('.ant-segmented-item').filter({ hasText: label });
    await expect(option).toBeVisible();
    expect(await inViewSideways(page, option), label).toBe(true);
  }
  expect(await scrollsSideways(filters)).toBe(false);
});
