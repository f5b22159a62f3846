/**
 * A site uploads as shipped (docs/decisions/uploads.md "File types"): its LICENSE and sources are kept as
 * downloads only, the owner is told which, and the live page can still fetch them.
 */
import { expect, test } from '@playwright/test';
import { ZipFile } from 'yazl';
import { createAccount, signIn } from './helpers';
import { review } from './site-helpers';

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

test('a site with a LICENSE, sources and a dotfile uploads; the page fetches its download-only file', async ({
  page,
  request,
}) => {
  const user = await createAccount(request, 'shipper');
  await signIn(page, user.username, user.password);
  await expect(page).toHaveURL(/\/dashboard$/);

  const zip = await zipOf({
    'pkg/index.html':
      '<!doctype html><meta charset="utf-8"><title>许可</title><h1>许可证</h1><pre id="licence">…</pre>' +
      '<script>fetch("LICENSE").then((r) => r.text()).then((t) => { document.getElementById("licence").textContent = t; });</script>',
    'pkg/LICENSE': 'MIT License — 站点展厅测试',
    'pkg/.jshintrc': '{ "esversion": 11 }',
    'pkg/src/theme.scss': '$a: 1;',
    'pkg/.nojekyll': '',
  });
  await page.goto('/upload');
  await page
    .getByTestId('file-input')
    .setInputFiles({ name: 'pkg.zip', mimeType: 'application/zip', buffer: zip });
  await expect(page.getByRole('list', { name: '已选择的文件' }).getByText('pkg.zip')).toBeVisible();
  await page.getByLabel('项目名称').fill('照原样发布');
  await page.getByRole('button', { name: '上传', exact: true }).click();
  await expect(page.getByText('文件上传成功！')).toBeVisible();
  await expect(page.getByText('3 个文件仅供下载，不作为网页内容')).toBeVisible();
  await expect(page).toHaveURL(/\/projects$/);

  await page.getByRole('article', { name: '照原样发布' }).getByRole('link', { name: '详情' }).click();
  await expect(page).toHaveURL(/\/projects\/\d+$/);
  const id = Number(new URL(page.url()).pathname.split('/').pop());
  // The detail page's notice (the upload's message saying the same may still be showing).
  await expect(page.locator('.ant-alert', { hasText: '3 个文件仅供下载，不作为网页内容' })).toBeVisible();
  await expect(page.getByText(/"\.jshintrc"、"LICENSE"、"src\/theme\.scss"/)).toBeVisible();
  await expect(page.locator('.ant-tag', { hasText: '仅供下载' })).toHaveCount(3);

  await review(request, id, 'approve');
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`/sites/${id}/`);
  await expect(page.locator('#licence')).toHaveText('MIT License — 站点展厅测试');
  expect(errors).toEqual([]);

  // Opened directly, the file is downloaded, never shown in the site's origin.
  const res = await request.get(page.url().replace(/\/$/, '/LICENSE'));
  expect(res.status()).toBe(200);
  expect(res.headers()['content-type']).toBe('application/octet-stream');
  expect(res.headers()['content-disposition']).toMatch(/^attachment;/);
});
