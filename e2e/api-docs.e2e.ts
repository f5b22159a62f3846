/**
 * The API's docs page (/api/docs, server/src/http/openapi.ts): every operation of
 * /api/openapi.json shows in the browser, under the app's CSP with nothing blocked, and the page
 * asks nothing of any other server.
 */
import { expect, test } from '@playwright/test';
import { E2E_PORT } from './env';

test('/api/docs shows every operation of the OpenAPI document, from this server only', async ({
  page,
  request,
}) => {
  const document = await (await request.get('/api/openapi.json')).json();
  const operations = Object.entries(
    document.paths as Record<string, Record<string, { summary: string }>>,
  ).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ path, method, summary: op.summary })),
  );
  expect(operations.length).toBeGreaterThan(30);

  const offServer: string[] = [];
  const violations: string[] = [];
  page.on('request', (r) => {
    if (new URL(r.url()).host !== `127.0.0.1:${E2E_PORT}`) offServer.push(r.url());
  });
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) violations.push(message.text());
  });
  await page.addInitScript(() => {
    (window as { __violations?: string[] }).__violations = [];
    document.addEventListener('securitypolicyviolation', (event: SecurityPolicyViolationEvent) => {
      (window as { __violations?: string[] }).__violations ??= [];
      (window as { __violations?: string[] }).__violations!.push(event.violatedDirective);
    });
  });

  await page.goto('/api/docs');
  await expect(page.getByRole('heading', { name: /接口文档/ })).toBeVisible();
  for (const { path, method, summary } of operations) {
    const row = page.locator('details.op summary', { hasText: path }).filter({ hasText: summary });
    await expect(row.first(), `${method} ${path}`).toBeVisible();
    await expect(row.first().locator('.method')).toHaveText(method.toUpperCase());
  }
  // An operation opens to show its schemas.
  const login = page.locator('details#login');
  await login.locator('summary').click();
  await expect(login.getByText('"username"').first()).toBeVisible();

  // The listener was installed (undefined would mean it never ran) and heard nothing.
  expect(await page.evaluate(() => (window as { __violations?: string[] }).__violations)).toEqual([]);
  expect(violations).toEqual([]);
  expect(offServer).toEqual([]);
});
