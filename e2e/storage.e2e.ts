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

test('the storage bar turns amber near full, and files sure to pass the quota are refused before sending', async ({
  page,
  request,
}) => {
  const owner = await createAccount(request, 'full');
  const admin = await apiToken(request, ADMIN.username, ADMIN.password);
  const users = await request.get(`/api/admin/users?search=${owner.username}`, {
    headers: { authorization: `Bearer ${admin}` },
  });
  const { id } = (await users.json()).data.users[0];
  const setQuota = async (bytes: number) => {
    const res = await request.patch(`/api/admin/users/${id}`, {
      data: { storage_quota_bytes: bytes },
      headers: { authorization: `Bearer ${admin}` },
    });
    expect(res.status(), await res.text()).toBe(200);
  };
  await setQuota(100 * MB);
  const token = await apiToken(request, owner.username, owner.password);
  const store = async (name: string, bytes: number) => {
    const upload = await request.post('/api/projects/upload', {
      headers: { authorization: `Bearer ${token}` },
      multipart: {
        project_name: name,
        files: { name: 'data.txt', mimeType: 'text/plain', buffer: Buffer.alloc(bytes, 'a') },
      },
    });
    expect(upload.status(), await upload.text()).toBe(201);
  };
  await store('快满了', 8.5 * MB);

  /** The colour the bar's filled part is drawn in. */
  const barColour = async () =>
    page
      .getByTestId('storage-usage')
      .locator('.ant-progress-track')
      .first()
      .evaluate((el) => getComputedStyle(el).backgroundColor);

  await signIn(page, owner.username, owner.password);
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goto('/upload');
  await expect(page.getByRole('progressbar', { name: '存储空间：已使用 8.5 MB / 100 MB' })).toBeVisible();
  const calm = await barColour();

  // 8.5 MB of 10 MB: 85 %.
  await setQuota(10 * MB);
  await page.reload();
  const bar = page.getByRole('progressbar', { name: '存储空间：已使用 8.5 MB / 10 MB' });
  await expect(bar).toHaveAttribute('aria-valuenow', '85');
  const amber = await barColour();
  expect(amber).not.toBe(calm);
  // antd's warning colour (#faad14).
  expect(amber).toBe('rgb(250, 173, 20)');

  // 3 MB more can't fit in the 1.5 MB left: refused on the page, with the server's wording.
  let sent = 0;
  page.on('request', (r) => {
    if (r.url().includes('/api/projects/upload')) sent++;
  });
  await page.getByLabel('项目名称').fill('放不下');
  await page.getByTestId('file-input').setInputFiles({
    name: 'big.txt',
    mimeType: 'text/plain',
    buffer: Buffer.alloc(3 * MB, 'b'),
  });
  await page.getByRole('button', { name: '上传', exact: true }).click();
  await expect(page.locator('.upload-card__alert')).toContainText(
    '存储空间不足：已使用 8.5 MB，上限 10 MB（本次上传约 3 MB）',
  );
  expect(sent).toBe(0);

  // Full: the bar is red and says so.
  await setQuota(100 * MB);
  await store('满了', 2 * MB);
  await setQuota(10 * MB);
  await page.reload();
  await expect(page.getByText('存储空间已用完')).toBeVisible();
  const red = await barColour();
  expect(red).not.toBe(amber);
  expect(red).not.toBe(calm);
});
