import fs from 'node:fs';
import path from 'node:path';
import { type APIRequestContext, expect, type Page, test } from '@playwright/test';
import { ADMIN, apiToken, createAccount, signIn } from './helpers';
import { bearer, review, page as sitePage, uploadSite, uploadVersion } from './site-helpers';

/** Picks a decision on the review detail page and submits it. */
async function decide(page: Page, option: string, reason?: string) {
  await page.getByRole('combobox', { name: '审核结果' }).click();
  await page.locator(`.ant-select-item-option[title="${option}"]`).click();
  if (reason !== undefined) await page.getByLabel('原因（必填）').fill(reason);
  await page.getByRole('button', { name: '提交审核' }).click();
}

/** Requests the live site over and over until stopped; every answer is kept. */
function pollSite(request: APIRequestContext, id: number) {
  const answers: Array<{ status: number; body: string }> = [];
  let running = true;
  const done = (async () => {
    while (running) {
      const res = await request.get(`/sites/${id}/`);
      answers.push({ status: res.status(), body: await res.text() });
    }
  })();
  return {
    answers,
    async stop() {
      running = false;
      await done;
    },
  };
}

test('the admin reviews from the dashboard, the review list and the review detail; the owner fixes a rejected version and it goes live without downtime', async ({
  page,
  request,
  browser,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const owner = await createAccount(request, 'owner');
  const ownerToken = await apiToken(request, owner.username, owner.password);
  const tag = Date.now().toString(36).slice(-4);

  // Three new projects, and one that is live at v1 and has a waiting v2.
  const dashboardPick = await uploadSite(
    request,
    ownerToken,
    `仪表盘审核-${tag}`,
    sitePage('仪表盘审核', 'v1'),
  );
  const listPick = await uploadSite(request, ownerToken, `列表发布-${tag}`, sitePage('列表发布', 'v1'));
  const versioned = await uploadSite(request, ownerToken, `版本站点-${tag}`, sitePage('版本站点', 'site-v1'));
  await review(request, versioned.id, 'approve');
  await review(request, listPick.id, 'approve');
  await uploadVersion(request, ownerToken, versioned.id, sitePage('版本站点', 'site-v2-broken'));

  await signIn(page, ADMIN.username, ADMIN.password);
  await expect(page).toHaveURL(/\/dashboard$/);

  // Dashboard: the real counters, and approve from the pending list.
  await page.goto('/admin/dashboard');
  await expect(page.getByRole('heading', { name: '管理概览' })).toBeVisible();
  await expect(page.locator('.stat-card', { hasText: '用户总数' })).toBeVisible();
  const pendingCard = page.locator('.admin-dashboard__pending');
  await expect(pendingCard.getByRole('link', { name: dashboardPick.name })).toBeVisible();
  await expect(pendingCard.getByText('index.html').first()).toBeVisible();
  await pendingCard.getByRole('button', { name: `通过 ${dashboardPick.name}` }).click();
  await expect(page.getByText('项目已通过')).toBeVisible();
  await expect(pendingCard.getByRole('link', { name: dashboardPick.name })).toHaveCount(0);
  expect((await request.get(`/sites/${dashboardPick.id}/`)).status()).toBe(200);

  // Review list: feature a live project (已发布 → 精选), after a confirmation that says what it does.
  // Found by its name: the queue lists the oldest first, behind other tests' projects.
  await page.goto(`/admin/reviews?status=approved&search=${encodeURIComponent(listPick.name)}`);
  const listRow = page.getByRole('row', { name: new RegExp(listPick.name) });
  await expect(listRow.getByText('已发布')).toBeVisible();
  await listRow.getByRole('button', { name: `设为精选 ${listPick.name}` }).click();
  await expect(
    page.locator('.ant-modal-confirm-title', { hasText: `将「${listPick.name}」设为精选？` }),
  ).toBeVisible();
  await page.locator('.ant-modal').getByRole('button', { name: '设为精选' }).click();
  await expect(page.getByText('项目已设为精选')).toBeVisible();
  await page.getByRole('tab', { name: /精选/ }).click();
  await expect(
    page.getByRole('row', { name: new RegExp(listPick.name) }).getByText('精选', { exact: true }),
  ).toBeVisible();
  // Taking it down asks a reason: the box has the focus at once, and Esc leaves the site as it was.
  await page
    .getByRole('row', { name: new RegExp(listPick.name) })
    .getByRole('button', { name: `下线 ${listPick.name}` })
    .click();
  await expect(page.getByLabel('原因')).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog')).toBeHidden();
  expect((await request.get(`/sites/${listPick.id}/`)).status()).toBe(200);

  // Review detail: the waiting v2 against the live v1, rejected with a reason.
  await page.goto(`/admin/reviews/${versioned.id}`);
  await expect(page.getByRole('heading', { name: `审核：${versioned.name}` })).toBeVisible();
  await expect(page.getByText('线上 v1，待审 v2').first()).toBeVisible();
  await expect(page.getByText(/版本差异：线上 v1 → 待审 v2/)).toBeVisible();
  await page.getByRole('button', { name: '提交审核' }).click();
  await expect(page.getByText('请选择审核状态')).toBeVisible();
  await page.getByRole('combobox', { name: '审核结果' }).click();
  await page.locator('.ant-select-item-option[title="拒绝"]').click();
  await page.getByRole('button', { name: '提交审核' }).click();
  await expect(page.getByText('拒绝项目时必须提供原因')).toBeVisible();
  const reason = '首页缺少联系方式，请补充后重新上传';
  await page.getByLabel('原因（必填）').fill(reason);
  await page.getByRole('button', { name: '提交审核' }).click();
  await expect(page.getByText('审核完成')).toBeVisible();
  await expect(page.locator('.review-history__comment', { hasText: reason })).toBeVisible();
  // The rejected upload leaves the live v1 serving.
  expect(await (await request.get(`/sites/${versioned.id}/`)).text()).toContain('site-v1');

  // Loose files: 上传方式 says so.
  await expect(page.locator('.ant-descriptions-item', { hasText: '上传方式' })).toContainText('文件上传');

  // The owner sees why, and uploads a fixed version.
  const ownerContext = await browser.newContext({ baseURL });
  const ownerPage = await ownerContext.newPage();
  await signIn(ownerPage, owner.username, owner.password);
  await expect(ownerPage).toHaveURL(/\/dashboard$/);
  await ownerPage.goto(`/projects/${versioned.id}`);
  await expect(ownerPage.getByText(reason).first()).toBeVisible();
  await ownerPage.getByRole('button', { name: '上传新版本' }).first().click();
  const versionDialog = ownerPage.getByRole('dialog');
  await expect(versionDialog.getByText('上传新版本 v3')).toBeVisible();
  await versionDialog.getByTestId('file-input').setInputFiles({
    name: 'index.html',
    mimeType: 'text/html',
    buffer: Buffer.from(
      '<!doctype html><html lang="zh-CN"><head><meta charset="utf-8"><title>版本站点</title></head><body><h1>版本站点</h1><p id="marker">site-v3-fixed</p></body></html>',
    ),
  });
  await versionDialog.getByRole('button', { name: '上传新版本' }).click();
  await expect(ownerPage.getByText('新版本已上传，等待审核')).toBeVisible();
  await ownerContext.close();

  // The admin approves v3 while visitors keep loading the site: no answer is ever an error.
  await page.reload();
  await expect(page.getByText('线上 v1，待审 v3').first()).toBeVisible();
  const poll = pollSite(request, versioned.id);
  await expect.poll(() => poll.answers.length).toBeGreaterThan(3);
  await decide(page, '通过');
  await expect(page.getByText('审核完成')).toBeVisible();
  await expect
    .poll(async () => (await request.get(`/sites/${versioned.id}/`)).text())
    .toContain('site-v3-fixed');
  await expect
    .poll(() => poll.answers.filter((a) => a.body.includes('site-v3-fixed')).length)
    .toBeGreaterThan(3);
  await poll.stop();

  expect(poll.answers.filter((a) => a.status !== 200)).toEqual([]);
  expect(poll.answers.some((a) => a.body.includes('site-v1'))).toBe(true);
  expect(poll.answers.some((a) => a.body.includes('site-v2-broken'))).toBe(false);
  const firstNew = poll.answers.findIndex((a) => a.body.includes('site-v3-fixed'));
  // Once the new version serves, the old one never comes back.
  expect(poll.answers.slice(firstNew).every((a) => a.body.includes('site-v3-fixed'))).toBe(true);
  await expect(page.getByText('线上 v3').first()).toBeVisible();

  // Rollback from the review detail: only the earlier approved v1 is offered (v2 was rejected).
  const versions = page.locator('.ant-card', { has: page.getByText('版本记录', { exact: true }) });
  await expect(versions.getByRole('button', { name: '回滚' })).toHaveCount(1);
  await versions.getByRole('row', { name: /v1/ }).getByRole('button', { name: '回滚' }).click();
  const confirm = page.locator('.ant-modal-confirm');
  await expect(confirm.locator('.ant-modal-confirm-title')).toHaveText('回滚到版本 v1？');
  await confirm.getByRole('button', { name: '回滚' }).click();
  await expect(page.getByText('已回滚到所选版本')).toBeVisible();
  expect(await (await request.get(`/sites/${versioned.id}/`)).text()).toContain('site-v1');
  // The page shows the new state without a reload: v1 live, v3 now the one to step forward to.
  await expect(versions.getByRole('row', { name: /v1/ }).getByText('线上')).toBeVisible();
  await expect(
    versions.getByRole('row', { name: /v3/ }).getByRole('button', { name: '切换到此版本' }),
  ).toBeVisible();
  await expect(page.locator('.review-history__item', { hasText: '回滚' }).first()).toBeVisible();
});

test('the review detail names an archive upload by the format the server read', async ({ page, request }) => {
  const owner = await createAccount(request, 'rar');
  const ownerToken = await apiToken(request, owner.username, owner.password);
  const form = new FormData();
  form.append('project_name', `RAR 站点-${Date.now().toString(36).slice(-4)}`);
  const bytes = fs.readFileSync(path.resolve('server/test/fixtures/rar/site.rar'));
  form.append('files', new Blob([bytes], { type: 'application/vnd.rar' }), 'site.rar');
  const uploaded = await request.post('/api/projects/upload', {
    headers: bearer(ownerToken),
    multipart: form,
  });
  expect(uploaded.status(), await uploaded.text()).toBe(201);
  const { id, name } = (await uploaded.json()).data.project;

  await signIn(page, ADMIN.username, ADMIN.password);
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goto(`/admin/reviews/${id}`);
  await expect(page.getByRole('heading', { name: `审核：${name}` })).toBeVisible();
  await expect(page.locator('.ant-descriptions-item', { hasText: '上传方式' })).toContainText('RAR 压缩包');
  await expect(page.locator('.version-files').first()).toContainText('RAR');
});

test('the admin pages show real data: projects, settings, audit log and the panel for other addresses', async ({
  page,
  request,
}) => {
  const owner = await createAccount(request, 'adm');
  const ownerToken = await apiToken(request, owner.username, owner.password);
  const site = await uploadSite(
    request,
    ownerToken,
    `管理页面-${Date.now().toString(36).slice(-4)}`,
    sitePage('管理页面', 'x'),
  );

  await signIn(page, ADMIN.username, ADMIN.password);
  await expect(page).toHaveURL(/\/dashboard$/);

  await page.goto('/admin/projects');
  await page.getByRole('searchbox', { name: '搜索项目' }).fill(site.name);
  await page.getByRole('searchbox', { name: '搜索项目' }).press('Enter');
  const row = page.getByRole('row', { name: new RegExp(site.name) });
  await expect(row.getByText('待审核')).toBeVisible();
  const download = page.waitForEvent('download');
  await row.getByRole('button', { name: `下载 ${site.name}` }).click();
  expect((await download).suggestedFilename()).toBe(`project-${site.id}.zip`);

  await page.goto('/admin/settings');
  await expect(page.getByLabel('单次上传文件数上限')).toHaveValue('20');
  await page.getByLabel('单次上传文件数上限').fill('25');
  await page.getByRole('button', { name: /保存设置/ }).click();
  await expect(page.locator('.ant-message').getByText('设置已保存')).toBeVisible();
  const config = await request.get('/api/config/public');
  expect((await config.json()).data.limits.max_files_per_upload).toBe(25);
  await page.getByLabel('单次上传文件数上限').fill('20');
  await page.getByRole('button', { name: /保存设置/ }).click();
  await expect(page.getByText('所有设置已保存')).toBeVisible();

  await page.goto('/admin/audit-logs');
  await expect(page.locator('.ant-tag', { hasText: '修改平台设置' }).first()).toBeVisible();
  await expect(page.locator('.ant-tag', { hasText: '下载项目' }).first()).toBeVisible();

  // Back in the projects list, delete after confirmation.
  await page.goto(`/admin/projects?search=${encodeURIComponent(site.name)}`);
  await page.getByRole('button', { name: `删除 ${site.name}` }).click();
  await page.getByRole('button', { name: '确认删除' }).click();
  await expect(page.getByText('项目已删除')).toBeVisible();
  await expect(page.getByText('没有找到匹配的项目')).toBeVisible();

  // Any other admin address: the panel with counters from the server.
  const stats = (
    await (
      await request.get('/api/admin/stats', {
        headers: { authorization: `Bearer ${await apiToken(request, ADMIN.username, ADMIN.password)}` },
      })
    ).json()
  ).data;
  await page.goto('/admin/whatever');
  await expect(page.getByRole('heading', { name: '管理后台' })).toBeVisible();
  await expect(page.locator('.stat-card', { hasText: '用户总数' }).locator('.stat-card__value')).toHaveText(
    String(stats.users.total),
  );
  await expect(page.locator('.stat-card', { hasText: '项目总数' }).locator('.stat-card__value')).toHaveText(
    String(stats.projects.total),
  );
});
