import fs from 'node:fs';
import path from 'node:path';
import { type APIRequestContext, expect, type Page, test } from '@playwright/test';
import { ZipFile } from 'yazl';
import { ADMIN, apiToken, createAccount, holdRequests, signIn } from './helpers';

/**
 * A small static site in a folder of its own, as a person would drag it from their desktop: in the
 * test's output folder (test-results/, emptied by the next run), not the system's temp folder.
 */
function siteFolder(): string {
  const site = test.info().outputPath('my-site');
  const files: Record<string, string> = {
    'index.html':
      '<!doctype html><meta charset="utf-8"><title>作品集</title><link rel="stylesheet" href="css/style.css"><h1>我的作品集</h1><script src="js/app.js"></script>',
    'css/style.css': 'h1 { color: #4f46e5; }\n'.repeat(80),
    'js/app.js': 'document.title += " ✓";\n',
    'img/logo.svg': '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>',
  };
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(site, name)), { recursive: true });
    fs.writeFileSync(path.join(site, name), content);
  }
  return site;
}

function zipOf(files: Record<string, string>): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const zip = new ZipFile();
    for (const [name, content] of Object.entries(files)) zip.addBuffer(Buffer.from(content), name);
    zip.end();
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    zip.outputStream.on('error', reject);
  });
}

/** Drags files onto the drop zone: a DataTransfer built in the page, dropped as the browser does. */
async function dropFiles(page: Page, files: Array<{ name: string; base64: string; type: string }>) {
  await expect(page.getByRole('region', { name: '拖拽上传区域' })).toBeVisible();
  await page.evaluate((list) => {
    const zone = document.querySelector('section[aria-label="拖拽上传区域"]');
    if (!zone) throw new Error('no drop zone');
    const data = new DataTransfer();
    for (const f of list) {
      const bytes = Uint8Array.from(atob(f.base64), (c) => c.charCodeAt(0));
      data.items.add(new File([bytes], f.name, { type: f.type, lastModified: Date.now() }));
    }
    for (const type of ['dragenter', 'dragover', 'drop']) {
      zone.dispatchEvent(new DragEvent(type, { dataTransfer: data, bubbles: true, cancelable: true }));
    }
  }, files);
}

const card = (page: Page, name: string) => page.getByRole('article', { name });

async function projectIdFromUrl(page: Page): Promise<number> {
  await expect(page).toHaveURL(/\/projects\/\d+$/);
  return Number(new URL(page.url()).pathname.split('/').pop());
}

test('a user uploads a folder and a zip, sees them everywhere, downloads, previews and deletes', async ({
  page,
  request,
}) => {
  // One person's whole journey through the owner's screens: longer than a single check.
  test.setTimeout(120_000);
  const user = await createAccount(request, 'owner');
  await signIn(page, user.username, user.password);
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByText('还没有项目', { exact: true })).toBeVisible();

  // A folder, chosen through the folder picker.
  await page.getByRole('link', { name: '上传新项目' }).click();
  await expect(page).toHaveURL(/\/upload$/);
  await expect(
    page.getByText(
      '单次最多上传 20 项（整个文件夹或压缩包算一项），单个文件不超过 100 MB，总大小不超过 200 MB。',
    ),
  ).toBeVisible();
  await expect(page.getByRole('button', { name: '上传', exact: true })).toBeDisabled();
  await page.getByTestId('folder-input').setInputFiles(siteFolder());
  const chosen = page.getByRole('list', { name: '已选择的文件' });
  await expect(chosen.getByText('my-site/index.html')).toBeVisible();
  await expect(chosen.getByText('my-site/css/style.css')).toBeVisible();
  await expect(chosen.getByRole('listitem')).toHaveCount(4);
  await expect(page.getByText('按目录结构原样发布这 4 个文件')).toBeVisible();
  await page.getByLabel('项目名称').fill('我的作品集');
  await page.getByLabel('项目描述').fill('用文件夹上传的静态站点');
  await expect(page.getByText('11/500')).toBeVisible();

  // The upload waits at the server's door until its progress has been seen.
  const release = await holdRequests(page, '**/api/projects/upload');
  await page.getByRole('button', { name: '上传', exact: true }).click();
  await expect(page.getByRole('button', { name: /上传中\.\.\./ })).toBeVisible();
  await expect(page.locator('form').getByRole('progressbar')).toBeVisible();
  await expect(page.getByText(/^\d+%$/)).toBeVisible();
  release();
  await expect(page.getByText('文件上传成功！')).toBeVisible();
  await expect(page).toHaveURL(/\/projects$/);
  await expect(card(page, '我的作品集').getByText('待审核')).toBeVisible();

  // A zip, dragged onto the drop zone.
  const zip = await zipOf({
    'landing/index.html': '<!doctype html><meta charset="utf-8"><h1>落地页</h1>',
    'landing/style.css': 'body { margin: 0; }',
  });
  await page.goto('/upload');
  await dropFiles(page, [{ name: 'landing.zip', base64: zip.toString('base64'), type: 'application/zip' }]);
  await expect(page.getByRole('list', { name: '已选择的文件' }).getByText('landing.zip')).toBeVisible();
  await expect(page.getByText('压缩包（ZIP）')).toBeVisible();
  // Loose files dropped too, so the type turns to files; then back to the single archive.
  await dropFiles(page, [
    { name: 'notes.txt', base64: Buffer.from('说明').toString('base64'), type: 'text/plain' },
  ]);
  await expect(page.getByRole('list', { name: '已选择的文件' }).getByRole('listitem')).toHaveCount(2);
  await expect(page.getByText('按目录结构原样发布这 2 个文件')).toBeVisible();
  await page.getByRole('button', { name: '移除 notes.txt' }).click();
  await expect(page.getByText('压缩包（ZIP）')).toBeVisible();
  // A server-side script is left out with its message.
  await dropFiles(page, [{ name: 'evil.php', base64: Buffer.from('<?php ?>').toString('base64'), type: '' }]);
  await expect(page.getByText('不接受可执行文件、安装程序或服务器端脚本')).toBeVisible();
  await page.getByLabel('项目名称').fill('产品落地页');
  await page.getByRole('button', { name: '上传', exact: true }).click();
  await expect(page.getByText('文件上传成功！')).toBeVisible();
  await expect(page).toHaveURL(/\/projects$/);
  await expect(card(page, '产品落地页').getByText('待审核')).toBeVisible();
  await expect(card(page, '我的作品集')).toBeVisible();

  // Both count on the dashboard.
  await page.getByRole('navigation', { name: '我的工作台' }).getByRole('link', { name: '控制台' }).click();
  await expect(page.getByTestId('counter-total')).toHaveText('2');
  await expect(page.getByTestId('counter-pending')).toHaveText('2');
  await expect(page.getByTestId('counter-published')).toHaveText('0');
  await expect(page.getByRole('list', { name: '最近项目' }).getByRole('listitem')).toHaveCount(2);

  // The folder project in detail: files without the wrapping folder, the entry file.
  await page.goto('/projects');
  await card(page, '我的作品集').getByRole('link', { name: '详情' }).click();
  const id = await projectIdFromUrl(page);
  await expect(page.getByRole('heading', { level: 1, name: '我的作品集' })).toBeVisible();
  const fileTable = page.locator('.ant-card').filter({ hasText: '文件列表' });
  for (const name of ['index.html', 'css/style.css', 'js/app.js', 'img/logo.svg']) {
    await expect(fileTable.getByRole('cell', { name, exact: true })).toBeVisible();
  }
  await expect(fileTable.getByRole('cell', { name: 'text/css', exact: false })).toBeVisible();
  const fileInfo = page.locator('.ant-card').filter({ hasText: '文件信息' });
  await expect(fileInfo.locator('code', { hasText: 'index.html' })).toBeVisible();
  await expect(fileInfo.getByText('4 个')).toBeVisible();
  await expect(fileInfo.getByText('文件', { exact: true })).toBeVisible();

  // Download: a real zip named project-{id}.zip.
  const downloading = page.waitForEvent('download');
  // The project's 下载 (each version of the versions list has its own: 下载 v1).
  await page.getByRole('button', { name: '下载', exact: true }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe(`project-${id}.zip`);
  const saved = await download.path();
  expect(fs.readFileSync(saved).subarray(0, 2).toString('latin1')).toBe('PK');
  await expect(
    page.locator('.ant-card').filter({ hasText: '统计信息' }).getByText('1', { exact: true }),
  ).toBeVisible();

  // Preview: a link with a countdown that really shows the site.
  await page.getByRole('button', { name: '生成预览' }).click();
  const previewLink = page.locator('a', { hasText: '/preview/' });
  await expect(previewLink).toBeVisible();
  await expect(page.getByRole('timer')).toHaveText(/^(30:00|29:5\d)$/);
  const firstText = await page.getByRole('timer').textContent();
  await expect(page.getByRole('timer')).not.toHaveText(firstText ?? '');
  const href = (await previewLink.getAttribute('href')) ?? '';
  expect(href).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/preview\/[\w-]+\/$/);
  const preview = await page.request.get(href);
  expect(preview.status()).toBe(200);
  expect(await preview.text()).toContain('我的作品集');
  // The same link comes back after a reload.
  await page.reload();
  await expect(page.locator('a', { hasText: '/preview/' })).toHaveAttribute('href', href);

  // Delete, after confirming.
  await page.getByRole('button', { name: '删除项目' }).click();
  const dialog = page.getByRole('dialog');
  await expect(dialog.getByText('确定要删除这个项目吗？此操作不可撤销。')).toBeVisible();
  await dialog.getByRole('button', { name: '删除' }).click();
  await expect(page).toHaveURL(/\/projects$/);
  await expect(card(page, '产品落地页')).toBeVisible();
  await expect(card(page, '我的作品集')).toHaveCount(0);
});

async function uploadByApi(request: APIRequestContext, token: string, name: string): Promise<number> {
  const res = await request.post('/api/projects/upload', {
    headers: { authorization: `Bearer ${token}` },
    multipart: {
      project_name: name,
      description: '通过接口上传',
      files: { name: 'index.html', mimeType: 'text/html', buffer: Buffer.from(`<h1>${name}</h1>`) },
    },
  });
  expect(res.status(), await res.text()).toBe(201);
  return (await res.json()).data.project.id as number;
}

async function review(request: APIRequestContext, id: number, action: string, comment?: string) {
  const token = await apiToken(request, ADMIN.username, ADMIN.password);
  const res = await request.post(`/api/admin/projects/${id}/review`, {
    headers: { authorization: `Bearer ${token}` },
    data: { action, ...(comment ? { comment } : {}) },
  });
  expect(res.status(), await res.text()).toBe(200);
}

test('a rejected project shows the reason; an approved one its address', async ({ page, request }) => {
  const user = await createAccount(request, 'reviewed');
  const token = await apiToken(request, user.username, user.password);
  const rejected = await uploadByApi(request, token, '被拒绝的站点');
  const approved = await uploadByApi(request, token, '已上线的站点');
  await review(request, rejected, 'reject', '页面引用了未授权的外部脚本，请移除后重新提交。');
  await review(request, approved, 'approve');

  await signIn(page, user.username, user.password);
  await expect(page).toHaveURL(/\/dashboard$/);
  await expect(page.getByTestId('counter-reviewed')).toHaveText('2');
  await expect(page.getByTestId('counter-published')).toHaveText('1');

  await page.goto('/projects');
  await page.getByRole('radiogroup', { name: '按状态筛选' }).getByText('已拒绝').click();
  await expect(page).toHaveURL(/\?status=rejected$/);
  await expect(card(page, '被拒绝的站点').getByText('已拒绝')).toBeVisible();
  await expect(card(page, '已上线的站点')).toHaveCount(0);
  await card(page, '被拒绝的站点').getByRole('link', { name: '详情' }).click();
  await expect(page.getByText('审核未通过')).toBeVisible();
  await expect(page.getByTestId('rejection-reason')).toHaveText(
    '页面引用了未授权的外部脚本，请移除后重新提交。',
  );
  await expect(
    page.locator('.ant-card').filter({ hasText: '审核记录' }).getByText('拒绝', { exact: true }),
  ).toBeVisible();

  await page.goto('/projects?status=approved');
  const live = card(page, '已上线的站点');
  await expect(live.getByText('已发布')).toBeVisible();
  await expect(live.getByRole('link', { name: '访问' })).toHaveAttribute('href', /\/sites\/\d+\/$/);
  await expect(live.getByRole('link', { name: '访问' })).toHaveAttribute('target', '_blank');
  await live.getByRole('link', { name: '详情' }).click();
  const visit = page.getByRole('link', { name: '访问项目' });
  await expect(visit).toHaveAttribute('href', new RegExp(`/sites/${approved}/$`));
  const site = await page.request.get((await visit.getAttribute('href')) ?? '');
  expect(await site.text()).toContain('已上线的站点');
});

test.describe('on a phone', () => {
  test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });

  test('the detail page’s file list shows file names, not one letter of each', async ({ page, request }) => {
    const user = await createAccount(request, 'phonefiles');
    const token = await apiToken(request, user.username, user.password);
    const id = await uploadByApi(request, token, '手机上的文件列表');
    await signIn(page, user.username, user.password);
    await expect(page).toHaveURL(/\/dashboard$/);
    await page.goto(`/projects/${id}`);
    const files = page.locator('.ant-card').filter({ hasText: '文件列表' });
    const cell = files.locator('tbody tr.ant-table-row td').first();
    await expect(cell).toHaveText('index.html');
    // The fixed columns (type, size, MIME) had left the name's cell 20 px: "i.".
    expect((await cell.boundingBox())?.width ?? 0).toBeGreaterThan(80);
  });

  test('the detail page starts with what the owner came to do: 快捷操作 and 访问地址 before the other cards', async ({
    page,
    request,
  }) => {
    const user = await createAccount(request, 'phoneactions');
    const token = await apiToken(request, user.username, user.password);
    const id = await uploadByApi(request, token, '手机上的操作');
    await signIn(page, user.username, user.password);
    await expect(page).toHaveURL(/\/dashboard$/);
    await page.goto(`/projects/${id}`);
    const top = async (title: string) =>
      (await page.locator('.ant-card').filter({ hasText: title }).first().boundingBox())?.y ?? Number.NaN;
    await expect(page.locator('.ant-card').filter({ hasText: '文件列表' })).toBeVisible();
    const actions = await top('快捷操作');
    // Before the project's details and its file list (they had come first, 3,600 px above it).
    expect(actions).toBeLessThan(await top('基本信息'));
    expect(actions).toBeLessThan(await top('文件列表'));
    expect(actions).toBeLessThan(844);
  });
});
