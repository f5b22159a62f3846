import { expect, test } from '@playwright/test';
import { apiToken, createAccount } from './helpers';
import { review, page as sitePage, uploadSite } from './site-helpers';

/** Two characters of this run, so searches match only the projects made here. */
function runTag(): [string, string] {
  const pool = '鲸鹤麟貔貅鸾凰鲲鹏麒獬豸夔饕餮';
  const n = Date.now();
  const first = pool[n % pool.length] ?? '鲸';
  const second = pool[Math.floor(n / pool.length) % pool.length] ?? '鹤';
  return [first, second === first ? '豸' : second];
}

test('a visitor searches the showcase in Chinese, sorts by name, filters 精选 and opens a site in a new tab', async ({
  page,
  context,
  request,
}) => {
  const [a, b] = runTag();
  const owner = await createAccount(request, 'maker');
  const token = await apiToken(request, owner.username, owner.password);
  const museum = await uploadSite(
    request,
    token,
    `${a}${b}博物馆`,
    sitePage(`${a}${b}博物馆`, '欢迎参观博物馆'),
    '线上展览',
  );
  const radio = await uploadSite(
    request,
    token,
    `${a}${b}电台`,
    sitePage(`${a}${b}电台`, '正在播放'),
    '每日节目',
  );
  const song = await uploadSite(request, token, `${a}之歌`, sitePage(`${a}之歌`, '歌词'), '一首歌');
  for (const site of [museum, radio, song]) await review(request, site.id, 'approve');
  await review(request, radio.id, 'publish');

  await page.goto('/public');
  await expect(page.getByRole('heading', { name: '项目展厅' })).toBeVisible();
  await expect(page.getByRole('radio', { name: '最新' })).toBeChecked();

  // One character, then two.
  const search = page.getByRole('searchbox', { name: '搜索项目' });
  await search.fill(a);
  await search.press('Enter');
  await expect(page.getByText(`共 3 个项目，匹配“${a}”`)).toBeVisible();
  await expect(page.getByRole('article')).toHaveCount(3);
  await expect(page.getByText('已显示所有项目')).toBeVisible();

  await search.fill(`${a}${b}`);
  await search.press('Enter');
  await expect(page.getByText(`共 2 个项目，匹配“${a}${b}”`)).toBeVisible();
  await expect(page.getByRole('article', { name: song.name })).toHaveCount(0);
  await expect(page).toHaveURL(/search=/);

  // Two words, each anywhere: this run's character in the name, 线上 in the description.
  await search.fill(` 线上  ${a} `);
  await search.press('Enter');
  await expect(page.getByText(`共 1 个项目，匹配“线上 ${a}”`)).toBeVisible();
  await expect(page.getByRole('article')).toHaveCount(1);
  await expect(page.getByRole('article', { name: museum.name })).toBeVisible();

  // Sorted by name, as the server orders names.
  await search.fill(a);
  await search.press('Enter');
  await expect(page.getByRole('article')).toHaveCount(3);
  await page.getByText('名称', { exact: true }).click();
  await expect(page).toHaveURL(/sort=name/);
  const byName = await request.get(`/api/projects/public?search=${encodeURIComponent(a)}&sort=name`);
  const expected = ((await byName.json()).data.projects as Array<{ name: string }>).map((p) => p.name);
  await expect(page.locator('.showcase-card__title')).toHaveText(expected);

  // Only featured.
  await page.getByRole('checkbox', { name: /只看精选/ }).click();
  await expect(page.getByRole('checkbox', { name: /只看精选/ })).toBeChecked();
  await expect(page.getByText(`共 1 个项目，匹配“${a}”（仅精选）`)).toBeVisible();
  const featuredCard = page.getByRole('article', { name: radio.name });
  await expect(featuredCard.getByText('精选')).toBeVisible();
  await expect(page).toHaveURL(/featured=true/);

  // A reload keeps the view.
  await page.reload();
  await expect(page.getByText(`共 1 个项目，匹配“${a}”（仅精选）`)).toBeVisible();

  // Each change is a history entry: Back shows the list before 只看精选, Forward returns to it.
  await page.goBack();
  await expect(page.getByText(`共 3 个项目，匹配“${a}”`)).toBeVisible();
  await expect(page.getByRole('checkbox', { name: /只看精选/ })).not.toBeChecked();
  await page.goBack();
  await expect(page.getByRole('radio', { name: '最新' })).toBeChecked();
  await expect(search).toHaveValue(a);
  await page.goForward();
  await page.goForward();
  await expect(page.getByText(`共 1 个项目，匹配“${a}”（仅精选）`)).toBeVisible();

  // Opening the site: a new tab with the site's own page.
  const opened = context.waitForEvent('page');
  await featuredCard.getByRole('link', { name: `访问 ${radio.name}` }).click();
  const site = await opened;
  await site.waitForLoadState();
  await expect(site).toHaveURL(new RegExp(`/sites/${radio.id}/$`));
  await expect(site.locator('#marker')).toHaveText('正在播放');

  // Nothing matches: the empty state and its way back.
  await page.getByRole('checkbox', { name: /只看精选/ }).click();
  await expect(page.getByRole('checkbox', { name: /只看精选/ })).not.toBeChecked();
  await search.fill(`${a}${b}不存在的项目`);
  await search.press('Enter');
  await expect(page.getByText('没有找到匹配的项目')).toBeVisible();
  await page.getByRole('button', { name: '清除搜索' }).click();
  await expect(search).toHaveValue('');
  await expect(page.getByText('没有找到匹配的项目')).toHaveCount(0);
  await expect(page).not.toHaveURL(/search=/);
  // Every live project again, still by name: this run's names may sort past the first page, so
  // back to 最新, where the three made above come first.
  await page.getByText('最新', { exact: true }).click();
  await expect(page.getByRole('radio', { name: '最新' })).toBeChecked();
  await expect(page.getByRole('article', { name: museum.name })).toBeVisible();
});

test('the showcase’s cards show without antd: its controls load after them, unannounced in the page’s preloads', async ({
  page,
  request,
}) => {
  const [a, b] = runTag();
  const owner = await createAccount(request, 'maker');
  const token = await apiToken(request, owner.username, owner.password);
  const site = await uploadSite(request, token, `${b}${a}画廊`, sitePage(`${b}${a}画廊`, '画廊'), '');
  await review(request, site.id, 'approve');

  const html = await (await request.get('/public')).text();
  expect(html).toMatch(/modulepreload[^>]+ShowcasePage-/);
  expect(html).not.toMatch(/modulepreload[^>]+(AntdShell|ShowcaseControls)-/);

  // With antd's theme shell and the controls' chunk held back, the cards still show, whole.
  let release = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route(/\/assets\/(AntdShell|ShowcaseControls)-[^/]+\.js$/, async (route) => {
    await held;
    await route.continue();
  });
  await page.goto('/public');
  const card = page.getByRole('article', { name: site.name });
  await expect(card).toBeVisible();
  await expect(card.getByRole('link', { name: `访问 ${site.name}` })).toBeVisible();
  await expect(page.getByRole('searchbox', { name: '搜索项目' })).toHaveCount(0);
  release();
  await expect(page.getByRole('searchbox', { name: '搜索项目' })).toBeVisible();
});
