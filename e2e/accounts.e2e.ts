import { expect, test } from '@playwright/test';
import { ADMIN, createAccount, signIn, untilStill } from './helpers';

test('the admin signs in, creates a user from /register and copies the generated password', async ({
  page,
  context,
}) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await signIn(page, ADMIN.username, ADMIN.password);
  await expect(page).toHaveURL(/\/dashboard$/);
  const nav = page.getByRole('navigation', { name: '主导航' });
  await expect(nav.getByRole('link', { name: '管理后台' })).toBeVisible();

  await page.getByRole('link', { name: /注册/ }).first().click();
  await expect(page).toHaveURL(/\/register$/);
  const username = `new${Date.now().toString(36)}`;
  await page.getByLabel('用户名').fill('ab');
  await page.getByRole('button', { name: /注\s*册/ }).click();
  await expect(page.getByText('用户名至少3个字符')).toBeVisible();
  await page.getByLabel('用户名').fill(username);
  await page.getByRole('button', { name: /注\s*册/ }).click();

  await expect(page.locator('main').getByText('注册成功！请保存生成的密码')).toBeVisible();
  await expect(page.locator('main').getByText(username, { exact: true })).toBeVisible();
  await expect(page.getByText('未设置')).toBeVisible();
  await expect(page.getByText(/离开此页面后将无法再次查看该密码/)).toBeVisible();
  await page.getByRole('button', { name: '复制密码' }).click();
  await expect(page.getByText('密码已复制到剪贴板')).toBeVisible();
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toMatch(/^[A-Za-z0-9]{16,}$/);

  // The copied password really signs the new user in.
  const res = await page.request.post('/api/auth/login', { data: { username, password: copied } });
  expect(res.status()).toBe(200);

  await page.getByRole('button', { name: /继续注册/ }).click();
  await expect(page.getByLabel('用户名')).toHaveValue('');
});

test('a user signs in with remember-me, sees a user’s navigation, is kept out of admin pages and signs out', async ({
  page,
  request,
}) => {
  const user = await createAccount(request);
  await signIn(page, user.username, user.password, { remember: true });
  await expect(page).toHaveURL(/\/dashboard$/);
  expect(await page.evaluate(() => Object.keys(localStorage).join(','))).toMatch(/token/i);

  const nav = page.getByRole('navigation', { name: '主导航' });
  await expect(nav.getByRole('link', { name: '我的项目' })).toBeVisible();
  await expect(nav.getByRole('link', { name: '上传项目' })).toBeVisible();
  await expect(nav.getByRole('link', { name: '管理后台' })).toHaveCount(0);
  await expect(page.getByRole('link', { name: /注册/ })).toHaveCount(0);

  await page.goto('/admin');
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goto('/admin/users');
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goto('/register');
  await expect(page.getByText('访问受限')).toBeVisible();
  await expect(page.getByText('只有管理员可以注册新用户')).toBeVisible();

  // Remember-me survives a new tab of the same browser profile.
  const second = await page.context().newPage();
  await second.goto('/dashboard');
  await expect(second).toHaveURL(/\/dashboard$/);
  await second.close();

  await page.goto('/dashboard');
  const menu = page.getByRole('button', { name: '用户菜单' });
  await expect(menu).toContainText(user.username);
  await menu.click();
  await expect(page.locator('.ant-dropdown')).toContainText(user.username);
  await expect(page.locator('.ant-dropdown')).toContainText('用户');
  await untilStill(page.locator('.ant-dropdown'));
  await page.getByRole('menuitem', { name: /登出/ }).click();
  await expect(page.getByText('登出成功')).toBeVisible();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole('link', { name: /登\s*录/ }).first()).toBeVisible();
  const stored = await page.evaluate(() => [...Object.keys(localStorage), ...Object.keys(sessionStorage)]);
  expect(stored.filter((k) => /token|user/i.test(k))).toEqual([]);
});

test('a guest is sent to /login and comes back to the page they wanted', async ({ page, request }) => {
  const user = await createAccount(request);
  await page.goto('/projects?status=pending');
  await expect(page).toHaveURL(/\/login$/);
  await signIn(page, user.username, user.password);
  await expect(page).toHaveURL(/\/projects\?status=pending$/);
});

test('a wrong password shows the server message in a closable banner', async ({ page }) => {
  await signIn(page, 'nobody-here', 'wrong-password');
  const alert = page.getByRole('alert').filter({ hasText: '用户名或密码错误' });
  await expect(alert).toBeVisible();
  await page.getByRole('button', { name: '关闭错误提示' }).click();
  await expect(alert).toHaveCount(0);
});

test('unknown paths go home, and the signed-in user is sent away from /login', async ({ page, request }) => {
  await page.goto('/no/such/page');
  await expect(page).toHaveURL(/\/$/);
  const user = await createAccount(request);
  await signIn(page, user.username, user.password);
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goto('/login');
  await expect(page).toHaveURL(/\/dashboard$/);
});

test('the profile page picks an avatar with its own 选择图片 button: no browser file picker, nothing wider than a phone', async ({
  page,
  request,
}) => {
  const account = await createAccount(request, 'avatar');
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, account.username, account.password);
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goto('/profile');
  await expect(page.getByRole('button', { name: /选择图片/ })).toBeVisible();
  // antd's form styles show every file input: the browser's own (English) picker stood beside it.
  await expect(page.getByTestId('avatar-file')).toBeHidden();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
});

test('a double-click on 注册 makes one account and shows its password', async ({ page }) => {
  await signIn(page, ADMIN.username, ADMIN.password);
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goto('/register');
  const username = `dbl${Date.now().toString(36)}`;
  await page.getByLabel('用户名').fill(username);
  await page.getByRole('button', { name: /注\s*册/ }).dblclick();
  await expect(page.locator('main').getByText('注册成功！请保存生成的密码')).toBeVisible();
  await expect(page.getByText('用户名已存在')).toHaveCount(0);
});

test('a new account on its generated password is asked to choose its own, and is no longer once it has', async ({
  page,
  request,
}) => {
  const user = await createAccount(request);
  await signIn(page, user.username, user.password);
  await expect(page).toHaveURL(/\/dashboard$/);
  const note = page.getByText('你仍在使用系统生成的初始密码，请尽快修改为自己的密码');
  await expect(note).toBeVisible();
  await page.getByRole('link', { name: '去修改密码' }).click();
  await expect(page).toHaveURL(/\/profile#change-password$/);
  await expect(page.getByTestId('initial-password-alert')).toBeVisible();
  // The form is in view with the current password's field focused: typing goes there.
  await expect(page.getByLabel('当前密码')).toBeFocused();
  await expect(page.getByLabel('当前密码')).toBeInViewport();
  await page.keyboard.type(user.password);
  // Keeping the generated password as the "new" one is refused before anything is sent.
  await page.getByLabel('新密码', { exact: true }).fill(user.password);
  await page.getByLabel('确认新密码').fill(user.password);
  await page.getByRole('button', { name: '修改密码' }).click();
  await expect(page.getByText('新密码不能与当前密码相同')).toBeVisible();
  await expect(page.getByTestId('initial-password-alert')).toBeVisible();
  const chosen = 'lantern-hall-keeper-of-my-own-9';
  await page.getByLabel('新密码', { exact: true }).fill(chosen);
  await page.getByLabel('确认新密码').fill(chosen);
  await page.getByRole('button', { name: '修改密码' }).click();
  await expect(page.getByText('密码已修改，其他设备上的登录已退出')).toBeVisible();
  await expect(page.getByTestId('initial-password-alert')).toHaveCount(0);
  await page.goto('/dashboard');
  await expect(page.getByText(`你好，${user.username}！`, { exact: false })).toBeVisible();
  await expect(note).toHaveCount(0);
  // The server says so too: signed in again with the new password, nothing is asked.
  const res = await request.post('/api/auth/login', { data: { username: user.username, password: chosen } });
  expect((await res.json()).data.user.password_initial).toBe(false);
});
