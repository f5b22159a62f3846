/**
 * Site names in a real browser (docs/decisions/names.md): the upload form suggests a name from a
 * Chinese project name, the owner edits it, the live site opens by its name on an origin of its own
 * (`{name}.localhost` on the sites port, so a root-absolute build works and its router sees `/`), and
 * a rename on the project page moves the address, the old one leading to the new.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, type Page, test } from '@playwright/test';
import { E2E_PORT } from './env';
import { createAccount, signIn } from './helpers';
import { review } from './site-helpers';

const APP = `http://localhost:${E2E_PORT}`;
const SITES_PORT = E2E_PORT + 1;

/** A site built with `base: '/'`: its script is asked from the root, and says the path it sees. */
function rootAbsoluteSite(): string {
  // In the test's output folder (test-results/, emptied by the next run).
  const site = test.info().outputPath('blog');
  fs.mkdirSync(path.join(site, 'assets'), { recursive: true });
  fs.writeFileSync(
    path.join(site, 'index.html'),
    '<!doctype html><meta charset="utf-8"><title>博客</title><h1>我的博客</h1><p id="path">脚本未运行</p><script src="/assets/app.js"></script>',
  );
  fs.writeFileSync(
    path.join(site, 'assets/app.js'),
    'document.getElementById("path").textContent = "路径：" + location.pathname;\n',
  );
  return site;
}

/** After the upload: its detail page (where usability findings send the owner), else the list's card. */
async function projectId(page: Page): Promise<number> {
  if (!/\/projects\/\d+$/.test(page.url()))
    await page.getByRole('article', { name: '我的博客' }).getByRole('link', { name: '详情' }).click();
  await expect(page).toHaveURL(/\/projects\/\d+$/);
  return Number(new URL(page.url()).pathname.split('/').pop());
}

test('a site named on upload opens by its name on its own origin, and a rename moves it', async ({
  page,
  request,
}) => {
  // One owner's whole path; a loaded runner takes seconds per keystroke.
  test.setTimeout(600_000);
  const user = await createAccount(request, 'namer');
  const name = `blog-${Date.now().toString(36)}`;
  await page.goto(`${APP}/login`);
  await signIn(page, user.username, user.password);
  await expect(page).toHaveURL(/\/dashboard$/);

  // The form suggests the pinyin of the project name, and shows the address it makes.
  await page.goto(`${APP}/upload`);
  await page.getByTestId('folder-input').setInputFiles(rootAbsoluteSite());
  await page.getByLabel('项目名称').fill('我的博客');
  const siteName = page.getByLabel('站点名');
  await expect(siteName).toHaveValue(/^wodeboke(-\d+)?$/);
  // A reserved name is refused under the field, before anything is sent.
  await siteName.fill('admin');
  await expect(page.getByText('站点名“admin”是保留名称，请换一个')).toBeVisible();
  await siteName.fill(name);
  await expect(page.getByText(`http://${name}.localhost:${SITES_PORT}/`)).toBeVisible();
  // Changing the project name no longer changes a name the owner typed.
  await page.getByLabel('项目名称').fill('我的博客 ');
  await page.getByLabel('项目名称').fill('我的博客');
  await expect(siteName).toHaveValue(name);
  await page.getByRole('button', { name: '上传', exact: true }).click();
  await expect(page.getByText('文件上传成功！')).toBeVisible();
  await expect(page).toHaveURL(/\/projects(\/\d+)?$/);

  const id = await projectId(page);
  await review(request, id, 'approve');
  await page.reload();
  // The detail page again, now live (a loaded runner may take a while to draw it).
  await expect(page.getByRole('heading', { level: 1, name: '我的博客' })).toBeVisible({ timeout: 120_000 });

  // The project page opens the named address, on an origin of the site's own.
  const visit = page.getByRole('link', { name: '访问项目' });
  await expect(visit).toHaveAttribute('href', `http://${name}.localhost:${SITES_PORT}/`);
  const site = await page.context().newPage();
  await site.goto(`http://${name}.localhost:${SITES_PORT}/`);
  await expect(site.getByRole('heading', { name: '我的博客' })).toBeVisible();
  // The root-absolute script loaded, and the page's own path is '/'.
  await expect(site.locator('#path')).toHaveText('路径：/');
  // Its number leads there too.
  await site.goto(`http://localhost:${SITES_PORT}/sites/${id}/`);
  await expect(site).toHaveURL(`http://${name}.localhost:${SITES_PORT}/`);

  // Rename on the project page.
  const renamed = `${name}-new`;
  await page.getByRole('button', { name: '编辑' }).click();
  const dialog = page.getByRole('dialog', { name: '编辑项目信息' });
  await expect(dialog.getByLabel('站点名')).toHaveValue(name);
  await dialog.getByLabel('站点名').fill(renamed);
  await expect(dialog.getByText(`http://${renamed}.localhost:${SITES_PORT}/`)).toBeVisible();
  await dialog.getByRole('button', { name: /保\s*存/ }).click();
  // (The toast may be gone before a loaded runner looks: the dialog closing and the address say it.)
  await expect(dialog).toBeHidden();
  await expect(page.getByRole('link', { name: '访问项目' })).toHaveAttribute(
    'href',
    `http://${renamed}.localhost:${SITES_PORT}/`,
  );
  // The old address leads to the new one.
  await site.goto(`http://${name}.localhost:${SITES_PORT}/`);
  await expect(site).toHaveURL(`http://${renamed}.localhost:${SITES_PORT}/`);
  await expect(site.locator('#path')).toHaveText('路径：/');

  // The showcase card opens the named address too.
  await page.goto(`${APP}/public`);
  await expect(page.getByRole('link', { name: '访问 我的博客' })).toHaveAttribute(
    'href',
    `http://${renamed}.localhost:${SITES_PORT}/`,
  );
});
