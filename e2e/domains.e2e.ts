/**
 * Custom domains in the browser (docs/product.md "Custom domains"): the owner adds a domain on the
 * project page, is shown the TXT record, presses 检查 (told when the record is missing), and sees
 * the domain active once the DNS has it; the admin approves a held domain and removes one on the
 * 自定义域名 page. A server of this file's own, with SITES_ORIGIN and a DNS server of the test's
 * (scripts/test-dns.ts) as DNS_RESOLVERS.
 */
import type { ChildProcess } from 'node:child_process';
import { expect, test } from '@playwright/test';
import { startTestDns, type TestDns } from '../scripts/test-dns';
import { freePort, startServer, stopServer } from './child-server';
import { ADMIN, apiToken, createAccount, signIn, untilStill } from './helpers';
import { bearer, review, page as sitePage, uploadSite } from './site-helpers';

let dns: TestDns;
let server: ChildProcess;
let baseURL: string;

test.beforeAll(async () => {
  dns = await startTestDns();
  const port = await freePort();
  baseURL = `http://127.0.0.1:${port}`;
  server = await startServer(port, {
    SITES_ORIGIN: 'http://sites.localhost',
    SITES_SUBDOMAINS: 'true',
    DNS_RESOLVERS: dns.address,
    // The app's own address: custom domains are offered only with it.
    PUBLIC_URL: baseURL,
  });
});

test.afterAll(async () => {
  await stopServer(server);
  await dns?.close();
});

test('the owner adds and verifies a domain; the admin approves one and removes one', async ({
  browser,
  playwright,
}) => {
  const request = await playwright.request.newContext({ baseURL });
  const owner = await createAccount(request, 'domains');
  const ownerToken = await apiToken(request, owner.username, owner.password);
  const site = await uploadSite(request, ownerToken, '俱乐部主页', sitePage('俱乐部主页', 'v1'));
  await review(request, site.id, 'approve');

  const ownerContext = await browser.newContext({ baseURL });
  const page = await ownerContext.newPage();
  await signIn(page, owner.username, owner.password);
  await page.waitForURL(/\/dashboard/);
  await page.goto(`/projects/${site.id}`);
  const card = page.locator('.ant-card').filter({ has: page.getByText('自定义域名', { exact: true }) });
  // The project page's code loads first: slow on a loaded runner.
  await expect(card.getByText('还没有自定义域名')).toBeVisible({ timeout: 120_000 });

  // What is no domain is refused in the form, with the rule's words.
  await card.getByLabel('域名', { exact: true }).fill('http://bad');
  await card.getByRole('button', { name: '添加域名' }).click();
  await expect(card.getByText('请输入有效的域名，例如 www.example.com（不带 http:// 和路径）')).toBeVisible();

  await card.getByLabel('域名', { exact: true }).fill('www.e2e-club.test');
  await card.getByRole('button', { name: '添加域名' }).click();
  const entry = card.getByTestId('domain-www.e2e-club.test');
  await expect(entry.getByText('待验证')).toBeVisible();
  await expect(entry.getByText('_sitehall.www.e2e-club.test')).toBeVisible();
  await expect(entry.getByText(`p${site.id}.sites.localhost`)).toBeVisible();
  const txtValue = (await entry.locator('code').nth(1).textContent())?.trim() ?? '';
  expect(txtValue).toMatch(/^sitehall-verify=/);

  // No record yet: the check says so under the domain.
  await card.getByRole('button', { name: '检查' }).click();
  await expect(entry.getByText(/未找到 _sitehall\.www\.e2e-club\.test 的 TXT 记录/)).toBeVisible();

  dns.setTxt('_sitehall.www.e2e-club.test', [txtValue]);
  await card.getByRole('button', { name: '检查' }).click();
  await expect(entry.getByText('已生效')).toBeVisible();
  await expect(entry.getByRole('link', { name: 'www.e2e-club.test' })).toHaveAttribute(
    'href',
    'https://www.e2e-club.test/',
  );

  // The platform now holds verified domains for approval; a second one waits for the admin.
  const adminToken = await apiToken(request, ADMIN.username, ADMIN.password);
  const setting = await request.put('/api/admin/config', {
    headers: bearer(adminToken),
    data: { custom_domains_require_approval: true },
  });
  expect(setting.status(), await setting.text()).toBe(200);
  await card.getByLabel('域名', { exact: true }).fill('shop.e2e-club.test');
  await card.getByRole('button', { name: '添加域名' }).click();
  const second = card.getByTestId('domain-shop.e2e-club.test');
  const secondValue = (await second.locator('code').nth(1).textContent())?.trim() ?? '';
  dns.setTxt('_sitehall.shop.e2e-club.test', [secondValue]);
  // The buttons are the list item's actions, beside the entry, named by its domain.
  await card.getByRole('button', { name: '检查 shop.e2e-club.test' }).click();
  await expect(second.getByText('待批准')).toBeVisible();

  const adminContext = await browser.newContext({ baseURL });
  const admin = await adminContext.newPage();
  await signIn(admin, ADMIN.username, ADMIN.password);
  await admin.waitForURL(/\/(admin|dashboard)/);
  await admin.goto('/admin/domains');
  await expect(admin.getByRole('heading', { name: '自定义域名' })).toBeVisible({ timeout: 120_000 });
  const held = admin.getByRole('row').filter({ hasText: 'shop.e2e-club.test' });
  await expect(held.getByText('待批准')).toBeVisible();
  await expect(held.getByText(owner.username)).toBeVisible();
  await expect(held.getByRole('link', { name: '俱乐部主页' })).toBeVisible();
  await held.getByRole('button', { name: '批准' }).click();
  await expect(held.getByText('已生效')).toBeVisible();

  const first = admin.getByRole('row').filter({ hasText: 'www.e2e-club.test' });
  await first.getByRole('button', { name: '删除' }).click();
  const confirm = admin.locator('.ant-popconfirm');
  await untilStill(confirm);
  await confirm.getByRole('button', { name: '删除' }).click();
  await expect(admin.getByRole('row').filter({ hasText: 'www.e2e-club.test' })).toHaveCount(0);
  // The owner's card no longer lists it.
  await page.reload();
  await expect(card.getByTestId('domain-shop.e2e-club.test')).toBeVisible();
  await expect(card.getByTestId('domain-www.e2e-club.test')).toHaveCount(0);

  await adminContext.close();
  await ownerContext.close();
  await request.dispose();
});
