import { expect, test } from '@playwright/test';
import { createAccount, signIn, untilStill } from './helpers';

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
  await card.getByRole('button', { name: '复制' }).click();
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
