import { type APIRequestContext, expect, type Locator, type Page } from '@playwright/test';
import { E2E_ADMIN_PASSWORD } from './env';

export const ADMIN = { username: 'admin', password: E2E_ADMIN_PASSWORD };

/** Signs in through the login form, as a person does. */
export async function signIn(
  page: Page,
  username: string,
  password: string,
  opts: { remember?: boolean } = {},
) {
  if (!page.url().includes('/login')) await page.goto('/login');
  await page.getByLabel('用户名或邮箱').fill(username);
  await page.getByLabel('密码', { exact: true }).fill(password);
  if (opts.remember) await page.getByLabel('记住我').check();
  await page.getByRole('button', { name: /登\s*录/ }).click();
}

/**
 * Waits until `popup` (a dropdown or dialog) has finished its opening animation. Playwright's
 * "stable" check compares two frames, which a loaded machine can draw before the zoom has ended:
 * a click then lands where the item was, not where it is, and does nothing (once in ten runs
 * under load, for the user menu's 登出).
 */
export async function untilStill(popup: Locator) {
  await expect.poll(() => popup.evaluate((el) => el.getAnimations({ subtree: true }).length)).toBe(0);
}

/**
 * Holds every request to `url` at the browser's door until `release` is called, so what the page
 * shows while it waits (an upload's progress) can be checked for as long as a loaded machine
 * needs, then lets them through.
 */
export async function holdRequests(page: Page, url: string) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  await page.route(url, async (route) => {
    await released;
    await route.continue();
  });
  return release;
}

export async function apiToken(
  request: APIRequestContext,
  username: string,
  password: string,
): Promise<string> {
  const res = await request.post('/api/auth/login', { data: { username, password } });
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()).data.token;
}

let counter = 0;
/** A new account made through the API by the admin; returns its generated password. */
export async function createAccount(request: APIRequestContext, prefix = 'user') {
  const token = await apiToken(request, ADMIN.username, ADMIN.password);
  const username = `${prefix}${Date.now().toString(36)}${counter++}`;
  const res = await request.post('/api/auth/register', {
    data: { username },
    headers: { authorization: `Bearer ${token}` },
  });
  expect(res.status(), await res.text()).toBe(201);
  return { username, password: (await res.json()).data.password as string };
}
