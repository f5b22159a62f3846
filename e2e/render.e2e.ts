import { expect, test } from '@playwright/test';
import { apiToken, createAccount, signIn } from './helpers';
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
