import { expect, test } from '@playwright/test';
import { ADMIN, apiToken, createAccount, signIn } from './helpers';

const MB = 1024 * 1024;

test('an owner sees their storage against their quota; the admin sees it in the user list', async ({
  page,
  request,
}) => {
  const owner = await createAccount(request, 'quota');
  const admin = await apiToken(request, ADMIN.username, ADMIN.password);
  const users = await request.get(`/api/admin/users?search=${owner.username}`, {
    headers: { authorization: `Bearer ${admin}` },
  });
  const { id } = (await users.json()).data.users[0];
  const quota = await request.patch(`/api/admin/users/${id}`, {
    data: { storage_quota_bytes: 20 * MB },
    headers: { authorization: `Bearer ${admin}` },
  });
  expect(quota.status(), await quota.text()).toBe(200);

  // 2 MB of files (the page itself is a few bytes more, which the bar rounds away).
  const token = await apiToken(request, owner.username, owner.password);
  const upload = await request.post('/api/projects/upload', {
    headers: { authorization: `Bearer ${token}` },
    multipart: {
      project_name: '配额演示',
      files: { name: 'data.txt', mimeType: 'text/plain', buffer: Buffer.alloc(2 * MB, 'a') },
    },
  });
  expect(upload.status(), await upload.text()).toBe(201);

  await signIn(page, owner.username, owner.password);
  await expect(page).toHaveURL(/\/dashboard$/);
  const bar = page.getByRole('progressbar', { name: '存储空间：已使用 2 MB / 20 MB' });
  await expect(bar).toBeVisible();
  await expect(bar).toHaveAttribute('aria-valuenow', '10');
  await expect(page.getByText('已使用 2 MB / 20 MB')).toBeVisible();

  await page.getByRole('link', { name: '上传新项目' }).click();
  await expect(page).toHaveURL(/\/upload$/);
  await expect(page.getByRole('progressbar', { name: '存储空间：已使用 2 MB / 20 MB' })).toBeVisible();

  await page.context().clearCookies();
  await page.evaluate(() => {
    localStorage.clear();
    sessionStorage.clear();
  });
  await page.goto('/login');
  await signIn(page, ADMIN.username, ADMIN.password);
  await expect(page).not.toHaveURL(/\/login/);
  await page.goto(`/admin/users?search=${owner.username}`);
  const row = page.getByRole('row', { name: new RegExp(owner.username) });
  await expect(row.getByText('2 MB / 20 MB')).toBeVisible();
});
