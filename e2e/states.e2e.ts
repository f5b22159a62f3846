/**
 * A takedown is 已下线 with its reason (not 审核未通过 · 拒绝原因): the owner reads it on the
 * project page, at 1440×900 and on a 390×844 phone, the notice within the viewport's width.
 */
import { expect, test } from '@playwright/test';
import { apiToken, createAccount, signIn } from './helpers';
import { review, page as sitePage, uploadSite } from './site-helpers';

for (const size of [
  { width: 1440, height: 900 },
  { width: 390, height: 844 },
]) {
  test(`the owner of a site taken down reads 已下线 and the reason at ${size.width}×${size.height}`, async ({
    page,
    request,
  }) => {
    await page.setViewportSize(size);
    const owner = await createAccount(request, 'down');
    const token = await apiToken(request, owner.username, owner.password);
    const site = await uploadSite(
      request,
      token,
      `下线站点-${Date.now().toString(36)}`,
      sitePage('下线站点', 'v1'),
    );
    await review(request, site.id, 'approve');
    await review(request, site.id, 'takedown', '含有违规内容');

    await signIn(page, owner.username, owner.password);
    await expect(page).toHaveURL(/\/dashboard$/);
    await page.goto(`/projects/${site.id}`);
    const notice = page.locator('.detail-notice');
    await expect(notice).toContainText('站点已被管理员下线');
    await expect(page.getByTestId('takedown-reason')).toHaveText('含有违规内容');
    await expect(page.getByText('审核未通过')).toHaveCount(0);
    await expect(page.locator('.status-tag', { hasText: '已下线' }).first()).toBeVisible();
    const box = await notice.boundingBox();
    expect(box).not.toBeNull();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(size.width);
  });
}
