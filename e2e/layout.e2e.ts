/**
 * Pages at a phone's width (390 px) and a laptop's (1366 px) in Chromium: everything reachable
 * without a hidden sideways scroll, nothing covered by a bar, the side menu's panel the screen's
 * height on long pages.
 */
import { expect, type Locator, type Page, test } from '@playwright/test';
import { ADMIN, apiToken, createAccount, signIn, untilStill } from './helpers';
import { review, uploadSite } from './site-helpers';

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

test('on a 390-pixel phone the version history fits the width: each version’s status, files and download in view', async ({
  page,
  request,
}) => {
  const owner = await createAccount(request, 'versions');
  const token = await apiToken(request, owner.username, owner.password);
  const site = await uploadSite(request, token, `版本手机-${Date.now().toString(36)}`, {
    'index.html': '<!doctype html><title>版本</title><p>v1</p>',
  });
  await page.setViewportSize(PHONE);
  await signInAs(page, owner.username, owner.password);
  await page.goto(`/projects/${site.id}`);
  const card = page.locator('.ant-card').filter({ has: page.getByText('版本记录', { exact: true }) });
  const table = card.locator('table');
  await table.scrollIntoViewIfNeeded();
  const row = card.locator('tr').filter({ hasText: 'v1' });
  for (const part of [
    row.getByText('v1', { exact: true }),
    row.getByText('待审核'),
    row.getByText(/1 个 ·/),
    row.getByRole('button', { name: '下载 v1' }),
  ]) {
    await expect(part).toBeVisible();
    expect(await inViewSideways(page, part)).toBe(true);
  }
  expect(await scrollsSideways(table.locator('xpath=..'))).toBe(false);
  expect(await inViewSideways(page, table)).toBe(true);

  // The file list too: at 480 px it scrolled sideways, 大小 out of sight.
  const files = page.locator('.ant-card').filter({ has: page.getByText('文件列表', { exact: true }) });
  const file = files.locator('tr').filter({ hasText: 'index.html' });
  await file.scrollIntoViewIfNeeded();
  for (const part of [file.getByText('index.html'), file.locator('td').nth(2)]) {
    await expect(part).toBeVisible();
    expect(await inViewSideways(page, part)).toBe(true);
  }
  expect(await scrollsSideways(files.locator('.ant-table-content'))).toBe(false);
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
});

test('on a 390-pixel phone an unread notice’s dot stays beside its title, not on a line of its own', async ({
  page,
  request,
}) => {
  const owner = await createAccount(request, 'dot');
  const token = await apiToken(request, owner.username, owner.password);
  const name = `未读圆点的站点-${Date.now().toString(36)}`;
  await uploadSite(request, token, name, { 'index.html': '<!doctype html><title>圆点</title><p>hi</p>' });
  await page.setViewportSize(PHONE);
  // The admin's notice of the upload, with 去审核.
  await signInAs(page, ADMIN.username, ADMIN.password);
  await page.goto('/notifications');
  const notice = page.getByTestId('notification').filter({ hasText: `「${name}」第 1 版等待审核` });
  await expect(notice).toBeVisible();
  const dot = notice.getByLabel('未读');
  const title = notice.getByText(`「${name}」第 1 版等待审核`);
  const [dotBox, titleBox] = [await dot.boundingBox(), await title.boundingBox()];
  expect(dotBox).not.toBeNull();
  expect(titleBox).not.toBeNull();
  // Left of the title, on its first line.
  expect(dotBox!.x + dotBox!.width).toBeLessThanOrEqual(titleBox!.x);
  expect(dotBox!.y).toBeLessThan(titleBox!.y + 24);
  expect(await inViewSideways(page, notice.getByRole('button', { name: '去审核' }))).toBe(true);
});

test.describe('on a touch phone', () => {
  test.use({ viewport: PHONE, isMobile: true, hasTouch: true });

  test('the upload zone says to tap to choose files, not to drag them', async ({ page, request }) => {
    const owner = await createAccount(request, 'touch');
    await signInAs(page, owner.username, owner.password);
    await page.goto('/upload');
    const zone = page.getByRole('region', { name: '上传区域' });
    await expect(zone).toContainText('点击选择网站文件、文件夹或压缩包');
    await expect(page.getByText(/拖到此处|拖入/)).toHaveCount(0);
  });
});

/** Whether a tap at the centre of a checkbox reaches it (or its label), not something drawn over it. */
const reachable = (checkbox: Locator) =>
  checkbox.evaluate((el) => {
    const label = el.closest('label')!;
    const r = label.querySelector('.ant-checkbox')!.getBoundingClientRect();
    const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return hit !== null && label.contains(hit);
  });

test('on a 390-pixel phone the settings’ save bar covers no field, scrolled to the bottom of the screen or to the page’s end', async ({
  page,
}) => {
  await page.setViewportSize(PHONE);
  await signInAs(page, ADMIN.username, ADMIN.password);
  await page.goto('/admin/settings');
  // The last control of the form, under the last card.
  const last = page.getByRole('checkbox', { name: '截图时允许加载公网样式表、字体和图片' });
  await expect(last).toBeVisible();
  await expect(page.getByRole('button', { name: /保存设置/ })).toBeVisible();

  // Scrolled down until it comes into view at the bottom of the screen, as a person reading on does.
  await page.evaluate(() => window.scrollTo(0, 0));
  await last.evaluate((el) => el.closest('label')!.scrollIntoView({ block: 'end' }));
  expect(await reachable(last), 'at the bottom of the screen').toBe(true);

  await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
  await expect
    .poll(() =>
      page.evaluate(
        () => Math.ceil(window.scrollY + window.innerHeight) >= document.documentElement.scrollHeight,
      ),
    )
    .toBe(true);
  expect(await reachable(last), 'at the end').toBe(true);
});

test('at 1366×768 the side menu’s panel covers the window’s height at the bottom of a long page', async ({
  page,
}) => {
  await page.setViewportSize(LAPTOP);
  await signInAs(page, ADMIN.username, ADMIN.password);
  await page.goto('/admin/settings');
  await expect(page.getByRole('button', { name: /保存设置/ })).toBeVisible();
  const sider = page.locator('.side-layout__sider');
  await expect(sider).toBeVisible();
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  expect(height).toBeGreaterThan(LAPTOP.height * 2);
  await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
  await expect
    .poll(() =>
      page.evaluate(
        () => Math.ceil(window.scrollY + window.innerHeight) >= document.documentElement.scrollHeight,
      ),
    )
    .toBe(true);
  const header = await page.locator('.app-header').boundingBox();
  const box = await sider.boundingBox();
  // From under the header to the window's bottom edge: its white panel and border all the way down.
  expect(box!.y).toBeLessThanOrEqual(header!.y + header!.height);
  expect(box!.y + box!.height).toBeGreaterThanOrEqual(LAPTOP.height);
  const background = await sider.evaluate((el) => getComputedStyle(el).backgroundColor);
  expect(background).toBe('rgb(255, 255, 255)');
});

test('at 1366×768 the admin’s user list fits its card: no sideways scroll, every column in view', async ({
  page,
  request,
}) => {
  // A user with the longest name there may be, and enough rows that the page has its scrollbar.
  await createAccount(request, 'a-long-user-name-list-');
  for (let i = 0; i < 6; i++) await createAccount(request, 'row');
  await page.setViewportSize(LAPTOP);
  await signInAs(page, ADMIN.username, ADMIN.password);
  await page.goto('/admin/users');
  await expect(page.getByRole('columnheader', { name: '操作' })).toBeVisible();
  await expect(page.locator('.ant-table-row').first()).toBeVisible();
  expect(await page.evaluate(() => document.documentElement.scrollHeight > window.innerHeight)).toBe(true);
  const scroller = page.locator('.ant-table-content');
  expect(await scrollsSideways(scroller)).toBe(false);
  // Nor does any cell's content spill past it.
  const spilling = await page
    .locator('.ant-table-row td')
    .evaluateAll((cells) => cells.filter((td) => td.scrollWidth > td.clientWidth).length);
  expect(spilling).toBe(0);
  for (const name of ['用户', '角色', '状态', '项目数', '存储空间', '最近登录', '创建时间', '操作']) {
    const header = page.getByRole('columnheader', { name, exact: true });
    expect(await inViewSideways(page, header), name).toBe(true);
  }
});

test('on a 390-pixel phone the user list and the audit log fit the width: rows as cards, the date range within the screen', async ({
  page,
  request,
}) => {
  const listed = await createAccount(request, 'phone-list-');
  await page.setViewportSize(PHONE);
  await signInAs(page, ADMIN.username, ADMIN.password);
  const fitsWindow = () => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

  // Searched for: the list is in id order, and the suite's other accounts push a new one past
  // the first page.
  await page.goto(`/admin/users?search=${listed.username}`);
  const userRow = page.locator('.ant-table-row').filter({ hasText: 'phone-list-' }).first();
  await expect(userRow).toBeVisible();
  expect(await fitsWindow()).toBe(true);
  // The table scrolled sideways inside its card, 操作 out of sight: now each user is a card.
  expect(await scrollsSideways(page.locator('.ant-table-content'))).toBe(false);
  for (const part of [userRow.getByText(/^phone-list-/), userRow.getByRole('button', { name: /重置密码/ })]) {
    await expect(part).toBeVisible();
    expect(await inViewSideways(page, part)).toBe(true);
  }

  await page.goto('/admin/audit-logs');
  const logRow = page.locator('.ant-table-row').first();
  await expect(logRow).toBeVisible();
  expect(await fitsWindow()).toBe(true);
  expect(await scrollsSideways(page.locator('.ant-table-content'))).toBe(false);
  expect(await inViewSideways(page, logRow.locator('td').last())).toBe(true);
  // The date range stuck out of its card; its two months, side by side, out of the screen: now
  // one month, wholly in the window, that the arrows page on.
  const range = page.locator('.audit-filters__range');
  expect(await inViewSideways(page, range)).toBe(true);
  await page.getByPlaceholder('开始日期').click();
  const popup = page.locator('.audit-range-popup');
  const panels = popup.locator('.ant-picker-panels');
  await expect(panels).toBeVisible();
  await untilStill(popup);
  expect(await inViewSideways(page, panels)).toBe(true);
  const box = await panels.boundingBox();
  expect(box!.y).toBeGreaterThanOrEqual(0);
  expect(box!.y + box!.height).toBeLessThanOrEqual(PHONE.height);
  const month = popup.locator('.ant-picker-header-view').first();
  const shown = (await month.textContent()) ?? '';
  await popup.locator('.ant-picker-header-next-btn').first().click();
  await expect(month).not.toHaveText(shown);
  expect(await fitsWindow()).toBe(true);

  // 自定义域名 on the default install: why none can be listed, and no column of headers a
  // character wide.
  await page.goto('/admin/domains');
  await expect(page.getByText('本平台未提供自定义域名', { exact: false })).toBeVisible();
  await expect(page.getByText('还没有自定义域名')).toBeVisible();
  await expect(page.getByRole('columnheader', { name: '添加时间' })).toBeHidden();
  expect(await fitsWindow()).toBe(true);
});

test('on a 390-pixel phone a user’s card is compact: the role’s select beside its label, the buttons across the card', async ({
  page,
  request,
}) => {
  const listed = await createAccount(request, 'compact-');
  await page.setViewportSize(PHONE);
  await signInAs(page, ADMIN.username, ADMIN.password);
  await page.goto(`/admin/users?search=${listed.username}`);
  const row = page.locator('.ant-table-row').filter({ hasText: listed.username }).first();
  await expect(row).toBeVisible();

  // The select took a line of its own under 角色 (its width was the cell's): now it sits on the
  // label's line, the cell one line high.
  const select = row.locator('.users-table__role');
  await expect(select).toBeVisible();
  const roleCell = row.locator('td').filter({ has: page.locator('.users-table__role') });
  const [selectBox, roleBox] = [await select.boundingBox(), await roleCell.boundingBox()];
  expect(roleBox!.height).toBeLessThan(selectBox!.height * 2);
  expect(selectBox!.x).toBeGreaterThan(roleBox!.x + 60);

  // The buttons came on lines of their own under 操作: now they start the cell, no label before
  // them, in at most two lines across the card.
  const actions = row.locator('td.users-table__actions');
  const label = await actions.evaluate((td) => getComputedStyle(td, '::before').display);
  expect(label).toBe('none');
  const buttons = actions.getByRole('button');
  await expect(buttons.first()).toBeVisible();
  const boxes = await buttons.evaluateAll((all) => all.map((b) => b.getBoundingClientRect().top));
  const actionsBox = await actions.boundingBox();
  expect(Math.min(...boxes) - actionsBox!.y).toBeLessThan(16);
  expect(new Set(boxes.map((top) => Math.round(top))).size).toBeLessThanOrEqual(2);
  expect(await inViewSideways(page, actions)).toBe(true);
});

test('at 1366×768 a version’s files read on one line in the version history, not a word a line', async ({
  page,
  request,
}) => {
  const owner = await createAccount(request, 'versions');
  const token = await apiToken(request, owner.username, owner.password);
  const site = await uploadSite(request, token, `版本表-${Date.now().toString(36)}`, {
    'index.html': '<!doctype html><title>版本</title><p>x</p>',
  });
  await review(request, site.id, 'approve');
  await page.setViewportSize(LAPTOP);
  await signInAs(page, owner.username, owner.password);
  await page.goto(`/projects/${site.id}`);
  const files = page.locator('.version-files').first();
  await expect(files).toBeVisible();
  // The first line (1 个 · 40 B · 文件), before the reviewer's line: its pieces share one line.
  const tops = await files.evaluate((el) => {
    const range = document.createRange();
    range.setStartBefore(el.firstChild as Node);
    const reviewed = el.querySelector('.version-files__comment');
    if (reviewed) range.setEndBefore(reviewed);
    else range.setEndAfter(el.lastChild as Node);
    return Array.from(range.getClientRects())
      .filter((r) => r.width > 0)
      .map((r) => Math.round(r.top));
  });
  expect(tops.length).toBeGreaterThan(0);
  expect(new Set(tops).size).toBe(1);
});

test('a usability finding’s kind is a tag as wide as its words, not a bar across the card', async ({
  page,
  request,
}) => {
  const owner = await createAccount(request, 'usable');
  const token = await apiToken(request, owner.username, owner.password);
  // A picture the page names but the upload lacks: the static check's usability finding.
  const site = await uploadSite(request, token, `缺图-${Date.now().toString(36)}`, {
    'index.html': '<!doctype html><title>缺图</title><img src="missing.png" alt="图"><p>x</p>',
  });
  await page.setViewportSize(LAPTOP);
  await signInAs(page, owner.username, owner.password);
  await page.goto(`/projects/${site.id}`);
  const card = page.locator('.ant-card').filter({ has: page.getByText(/^可用性问题/) });
  const tag = card.locator('.usability-findings__item .ant-tag').first();
  await expect(tag).toBeVisible();
  const [tagBox, cardBox] = [await tag.boundingBox(), await card.boundingBox()];
  expect(tagBox!.width).toBeLessThan(cardBox!.width / 3);
});

test('on a 390-pixel phone a refusal’s reason reads across the notice, its 上传新版本 below it', async ({
  page,
  request,
}) => {
  const owner = await createAccount(request, 'refused');
  const token = await apiToken(request, owner.username, owner.password);
  const site = await uploadSite(request, token, `被拒-${Date.now().toString(36)}`, {
    'index.html': '<!doctype html><title>被拒</title><p>x</p>',
  });
  await review(request, site.id, 'reject', '缺少首页 index.html，请补充后重新上传');
  await page.setViewportSize(PHONE);
  await signInAs(page, owner.username, owner.password);
  await page.goto(`/projects/${site.id}`);
  const notice = page.locator('.detail-notice');
  const reason = notice.getByTestId('rejection-reason');
  const button = notice.getByRole('button', { name: '上传新版本' });
  await expect(reason).toHaveText('缺少首页 index.html，请补充后重新上传');
  const [noticeBox, reasonBox, buttonBox] = [
    await notice.boundingBox(),
    await reason.boundingBox(),
    await button.boundingBox(),
  ];
  // Beside the button the reason had a third of the notice's width: now the button is below it,
  // and the reason's lines take the notice's width.
  expect(reasonBox!.x + reasonBox!.width).toBeGreaterThan(noticeBox!.x + noticeBox!.width * 0.6);
  expect(buttonBox!.y).toBeGreaterThanOrEqual(reasonBox!.y + reasonBox!.height);
  expect(buttonBox!.x + buttonBox!.width).toBeLessThanOrEqual(noticeBox!.x + noticeBox!.width);
});
