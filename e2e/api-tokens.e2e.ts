import { expect, test } from '@playwright/test';
import { ADMIN, apiToken, createAccount, signIn, untilStill } from './helpers';

test('a user creates an API token on the profile page, copies it once, uses it and revokes it', async ({
  page,
  context,
  request,
}) => {
  const user = await createAccount(request, 'tokens');
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  await signIn(page, user.username, user.password);
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goto('/profile');
  const card = page.locator('.ant-card').filter({ hasText: 'API 令牌' });
  await expect(card.getByText('还没有 API 令牌')).toBeVisible();

  await card.getByLabel('令牌名称').fill('持续集成');
  await card.getByRole('button', { name: '创建令牌' }).click();
  await expect(card.getByText(/只显示这一次/)).toBeVisible();
  const shown = card.getByTestId('new-api-token');
  const token = ((await shown.textContent()) ?? '').trim();
  expect(token).toMatch(/^sht_[A-Za-z0-9_-]{43}$/);
  // The token's own copy button (the commands below it have theirs).
  await shown.getByRole('button', { name: '复制' }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);
  await expect(card.getByRole('cell', { name: '持续集成' })).toBeVisible();

  // The token works for the user's projects, not for account changes.
  const auth = { authorization: `Bearer ${token}` };
  expect((await request.get('/api/projects/my', { headers: auth })).status()).toBe(200);
  expect((await request.get('/api/auth/tokens', { headers: auth })).status()).toBe(403);

  // Shown once: after a reload only its name remains.
  await page.reload();
  await expect(card.getByRole('cell', { name: '持续集成' })).toBeVisible();
  await expect(page.getByText(token)).toHaveCount(0);

  await card.getByRole('button', { name: /撤\s*销/ }).click();
  const confirm = page.locator('.ant-popover').filter({ hasText: '撤销令牌「持续集成」？' });
  await untilStill(confirm);
  await confirm.getByRole('button', { name: '确认撤销' }).click();
  await expect(page.getByText('令牌已撤销')).toBeVisible();
  await expect(card.getByText('还没有 API 令牌')).toBeVisible();
  expect((await request.get('/api/projects/my', { headers: auth })).status()).toBe(401);
});

test('an admin sees another account’s API tokens on the users page and revokes a leaked one', async ({
  page,
  request,
}) => {
  const owner = await createAccount(request, 'leaky');
  const session = await apiToken(request, owner.username, owner.password);
  const make = async (name: string) => {
    const res = await request.post('/api/auth/tokens', {
      data: { name },
      headers: { authorization: `Bearer ${session}` },
    });
    expect(res.status(), await res.text()).toBe(201);
    return (await res.json()).data.token as string;
  };
  const leaked = await make('泄露的令牌');
  const kept = await make('构建服务器');
  const auth = (token: string) => ({ authorization: `Bearer ${token}` });
  expect((await request.get('/api/projects/my', { headers: auth(leaked) })).status()).toBe(200);

  await signIn(page, ADMIN.username, ADMIN.password);
  await expect(page).not.toHaveURL(/\/login/);
  await page.goto(`/admin/users?search=${owner.username}`);
  const row = page.getByRole('row', { name: new RegExp(owner.username) });
  await row.getByRole('button', { name: '令牌' }).click();
  const dialog = page.getByRole('dialog').filter({ hasText: `${owner.username} 的 API 令牌` });
  const leakedRow = dialog.getByRole('row', { name: /泄露的令牌/ });
  // Its first characters tell it apart, the secret itself is not shown; it was used just now.
  await expect(leakedRow.getByText(`${leaked.slice(0, 12)}…`)).toBeVisible();
  await expect(leakedRow).not.toContainText('从未使用');
  await expect(dialog.getByRole('row', { name: /构建服务器/ })).toContainText('从未使用');
  await expect(page.getByText(leaked)).toHaveCount(0);

  await leakedRow.getByRole('button', { name: '撤销令牌 泄露的令牌' }).click();
  const confirm = page.locator('.ant-popover').filter({ hasText: '撤销令牌 "泄露的令牌" 后' });
  await untilStill(confirm);
  await confirm.getByRole('button', { name: '确认撤销' }).click();
  await expect(page.getByText('令牌已撤销')).toBeVisible();
  await expect(dialog.getByRole('row', { name: /泄露的令牌/ })).toHaveCount(0);
  expect((await request.get('/api/projects/my', { headers: auth(leaked) })).status()).toBe(401);
  expect((await request.get('/api/projects/my', { headers: auth(kept) })).status()).toBe(200);
});
