/**
 * The admin console's calls: the review list (tabs with counts, search, paging), the pending list
 * (oldest first, three file names each), the review detail (content check, version diff, views and
 * downloads), the dashboard's figures, the audit log with its filters, and the platform settings,
 * which apply at once to uploads and to /api/config/public. Every one is admin-only.
 */
import {
  DEFAULT_LIMITS,
  DEFAULT_PREVIEW_TTL_SECONDS,
  DEFAULT_UPLOADS_PER_HOUR,
  DEFAULT_USER_STORAGE_BYTES,
  FILE_DIFF_MAX_BYTES,
  format,
  messages,
  SETTING_KEYS,
  type SettingKey,
  settingDefaults,
  settingNameWithUnit,
  settingOf,
} from '@sitehall/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { trendPercent } from '../src/services/stats.js';
import {
  createTestApp,
  expectFailure,
  liveProject,
  review,
  SIMPLE_SITE,
  type TestApp,
  type UploadFile,
  uploadProject,
} from './helpers.js';

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/126.0 Safari/537.36';
const DAY = 86_400_000;

async function get(t: TestApp, url: string) {
  const res = await t.request({ url, token: await t.adminToken() });
  if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
  return res.json().data;
}

async function upload(
  t: TestApp,
  token: string,
  name: string,
  files: UploadFile[] = SIMPLE_SITE,
  description?: string,
) {
  const res = await uploadProject(t, token, { name, files, ...(description ? { description } : {}) });
  if (res.statusCode !== 201) throw new Error(`upload failed: ${res.statusCode} ${res.body}`);
  return res.json().data.project.id as number;
}

describe('review list', () => {
  let t: TestApp;
  const ids: Record<string, number> = {};
  beforeAll(async () => {
    t = await createTestApp();
    const alice = await t.createUser({ username: 'alice_owner' });
    const bob = await t.createUser({ username: '张三丰' });
    ids.pending1 = await upload(t, alice.token, '天气预报', SIMPLE_SITE, '查看每天的天气');
    ids.pending2 = await upload(t, bob.token, '旅行日记');
    ids.approved = (await liveProject(t, SIMPLE_SITE, { name: '个人简历', owner: alice })).id;
    ids.published = (await liveProject(t, SIMPLE_SITE, { name: '摄影作品集', owner: bob })).id;
    await review(t, ids.published, 'publish');
    ids.rejected = await upload(t, bob.token, '小游戏');
    await review(t, ids.rejected, 'reject', '内容不完整');
  });
  afterAll(() => t.close());

  it('lists every project newest first, with tab counts and the spec pagination', async () => {
    const data = await get(t, '/api/admin/projects');
    // 已发布 (approved) counts the featured project too; 精选 (published) only it.
    expect(data.counts).toEqual({
      all: 5,
      pending: 2,
      approved: 2,
      published: 1,
      rejected: 1,
      taken_down: 0,
    });
    expect(data.pagination).toEqual({ current_page: 1, total_pages: 1, total_count: 5, page_size: 10 });
    expect(data.projects.map((p: { id: number }) => p.id)).toEqual([
      ids.rejected,
      ids.published,
      ids.approved,
      ids.pending2,
      ids.pending1,
    ]);
    const first = data.projects[0];
    expect(first).toMatchObject({
      id: ids.rejected,
      project_name: '小游戏',
      status: 'rejected',
      rejectionReason: '内容不完整',
      owner: { username: '张三丰' },
      content_check: { level: 'clean' },
      pending_since: null,
      file_count: 2,
    });
    expect(first).not.toHaveProperty('file_names');
    const pending = data.projects.find((p: { id: number }) => p.id === ids.pending1);
    expect(pending.pending_since).toEqual(expect.any(String));
  });

  it('filters by tab, keeping the counts of every tab', async () => {
    const data = await get(t, '/api/admin/projects?status=pending');
    expect(data.projects.map((p: { id: number }) => p.id)).toEqual([ids.pending2, ids.pending1]);
    expect(data.counts.all).toBe(5);
    expect(data.pagination.total_count).toBe(2);
    const oldest = await get(t, '/api/admin/projects?status=pending&sort=oldest');
    expect(oldest.projects.map((p: { id: number }) => p.id)).toEqual([ids.pending1, ids.pending2]);
    for (const status of ['published', 'rejected'] as const) {
      const list = await get(t, `/api/admin/projects?status=${status}`);
      expect(list.projects.map((p: { id: number }) => p.id)).toEqual([ids[status]]);
    }
  });

  it('lists and counts under 已发布 the approved and the featured projects, the number the dashboard shows', async () => {
    const live = await get(t, '/api/admin/projects?status=approved');
    expect(live.projects.map((p: { id: number }) => p.id)).toEqual([ids.published, ids.approved]);
    expect(live.pagination.total_count).toBe(2);
    expect(live.counts.approved).toBe(2);
    // The dashboard's and the overview's 已发布 card: approved plus featured, from the stats.
    const stats = await get(t, '/api/admin/stats');
    expect(live.counts.approved).toBe(stats.projects.approved + stats.projects.published);
  });

  it('searches name, description and owner (any case, one Chinese character, several words), counting per tab', async () => {
    const ids_ = async (q: string) =>
      (await get(t, `/api/admin/projects?search=${encodeURIComponent(q)}`)).projects.map(
        (p: { id: number }) => p.id,
      );
    expect(await ids_('天气')).toEqual([ids.pending1]);
    expect(await ids_('每天')).toEqual([ids.pending1]);
    expect(await ids_('ALICE')).toEqual([ids.approved, ids.pending1]);
    expect(await ids_('张')).toEqual([ids.rejected, ids.published, ids.pending2]);
    expect(await ids_('%')).toEqual([]);
    // Several words: each anywhere (name, description, owner), all of them.
    expect(await ids_('天气 alice')).toEqual([ids.pending1]);
    expect(await ids_('  alice   简历 ')).toEqual([ids.approved]);
    expect(await ids_('天气 张三丰')).toEqual([]);
    const data = await get(t, `/api/admin/projects?search=${encodeURIComponent('张三丰')}&status=rejected`);
    expect(data.counts).toEqual({
      all: 3,
      pending: 1,
      approved: 1,
      published: 1,
      rejected: 1,
      taken_down: 0,
    });
    expect(data.projects.map((p: { id: number }) => p.id)).toEqual([ids.rejected]);
  });

  it('pages, and refuses bad queries with 400', async () => {
    const p1 = await get(t, '/api/admin/projects?page_size=2');
    const p3 = await get(t, '/api/admin/projects?page_size=2&page=3');
    expect(p1.pagination).toEqual({ current_page: 1, total_pages: 3, total_count: 5, page_size: 2 });
    expect(p1.projects).toHaveLength(2);
    expect(p3.projects.map((p: { id: number }) => p.id)).toEqual([ids.pending1]);
    expect((await get(t, '/api/admin/projects?page=9')).projects).toEqual([]);
    for (const q of ['status=live', 'page=0', 'page_size=500', 'sort=random']) {
      expectFailure(await t.request({ url: `/api/admin/projects?${q}`, token: await t.adminToken() }), 400);
    }
    const size = await t.request({ url: '/api/admin/projects?page_size=500', token: await t.adminToken() });
    expect(size.json().errors).toEqual({ page_size: '每页数量必须在1到100之间' });
  });
});

describe('pending list', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('lists waiting projects oldest first (by their newest upload), three file names each, entry first', async () => {
    const owner = await t.createUser();
    const files: UploadFile[] = [
      { name: 'a.css', content: 'a{}' },
      { name: 'b.js', content: 'var b;' },
      { name: 'c.txt', content: 'c' },
      { name: 'index.html', content: '<p>首页</p>' },
      { name: 'z.txt', content: 'z' },
    ];
    const first = await upload(t, owner.token, '第一个', files);
    const second = await upload(t, owner.token, '第二个', [{ name: 'only.html', content: '<p>唯一</p>' }]);
    const { id: live } = await liveProject(t, SIMPLE_SITE, { name: '已上线', owner });
    const third = await upload(t, owner.token, '第三个');
    // The live project's new version waits since its own upload: it is the newest in the queue.
    await uploadProject(t, owner.token, { projectId: live, files: SIMPLE_SITE });

    const data = await get(t, '/api/admin/projects/pending');
    expect(data.projects.map((p: { id: number }) => p.id)).toEqual([first, second, third, live]);
    expect(data.pagination).toEqual({ current_page: 1, total_pages: 1, total_count: 4, page_size: 5 });
    expect(data.projects[0].file_names).toEqual(['index.html', 'a.css', 'b.js']);
    expect(data.projects[1].file_names).toEqual(['only.html']);
    expect(data.projects[3]).toMatchObject({ is_live: true, live_version: 1, latest_version: 2 });
    const since = data.projects.map((p: { pending_since: string }) => p.pending_since);
    expect(since).toEqual([...since].sort());

    const paged = await get(t, '/api/admin/projects/pending?page_size=2&page=2');
    expect(paged.projects.map((p: { id: number }) => p.id)).toEqual([third, live]);
    expectFailure(
      await t.request({ url: '/api/admin/projects/pending?page_size=51', token: await t.adminToken() }),
      400,
    );
  });
});

describe('review detail', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('has the project, its check, the diff against the live version, views per day and downloads', async () => {
    const v1: UploadFile[] = [
      { name: 'index.html', content: '<h1>一</h1>' },
      { name: 'css/style.css', content: 'body{}' },
      { name: 'old.txt', content: '旧' },
    ];
    const { id, owner } = await liveProject(t, v1, { name: '版本对比' });
    const v2 = await uploadProject(t, owner.token, {
      projectId: id,
      files: [
        { name: 'index.html', content: '<h1>第二版</h1>' },
        { name: 'css/style.css', content: 'body{}' },
        { name: 'new.txt', content: '新文件' },
      ],
    });
    expect(v2.statusCode).toBe(200);
    for (let i = 0; i < 3; i++) t.ctx.services.views.count(id, { ip: `10.0.0.${i}`, userAgent: BROWSER });
    await t.ctx.services.views.flush();
    const download = await t.request({
      url: `/api/admin/projects/${id}/download`,
      token: await t.adminToken(),
    });
    expect(download.statusCode).toBe(200);

    const data = await get(t, `/api/admin/projects/${id}`);
    expect(data.project).toMatchObject({
      id,
      status: 'pending',
      is_live: true,
      live_version: 1,
      latest_version: 2,
      download_count: 1,
      access_count: 3,
    });
    expect(data.project.files.map((f: { file_name: string }) => f.file_name)).toEqual([
      'css/style.css',
      'index.html',
      'new.txt',
    ]);
    expect(data.content_check_version).toBe(2);
    expect(data.content_check).toMatchObject({ version: 2, level: 'clean' });
    expect(data.diff).toEqual({
      from_version: 1,
      to_version: 2,
      added: [{ file: 'new.txt', size: Buffer.byteLength('新文件') }],
      removed: [{ file: 'old.txt', size: Buffer.byteLength('旧') }],
      changed: [
        {
          file: 'index.html',
          old_size: Buffer.byteLength('<h1>一</h1>'),
          new_size: Buffer.byteLength('<h1>第二版</h1>'),
          text: true,
        },
      ],
      unchanged_count: 1,
      // Neither version has _redirects or _headers (server/test/site-routing.test.ts has them).
      site_rules: { live: null, newest: null },
    });
    expect(data.stats).toMatchObject({ view_count: 3, download_count: 1, views_last_7_days: 3 });
    expect(data.stats.views_by_day).toHaveLength(30);
    expect(data.stats.views_by_day.at(-1)).toEqual({ day: new Date().toISOString().slice(0, 10), views: 3 });
    expect(data.stats.views_by_day[0].views).toBe(0);

    // Approved, the versions are the same: no diff.
    await review(t, id, 'approve');
    expect((await get(t, `/api/admin/projects/${id}`)).diff).toBeNull();
  });

  it('answers 404 for a missing project or an invalid id', async () => {
    const admin = await t.adminToken();
    expectFailure(
      await t.request({ url: '/api/admin/projects/99999', token: admin }),
      404,
      messages.project.notFound,
    );
    expectFailure(await t.request({ url: '/api/admin/projects/abc', token: admin }), 404);
  });

  it('answers one text file of the live and the newest version for the line diff (admin only)', async () => {
    const big = (fill: string) => `${fill.repeat(FILE_DIFF_MAX_BYTES)}\n`;
    const { id, owner } = await liveProject(
      t,
      [
        { name: 'index.html', content: '\ufeff<h1>一</h1>\n<p>同</p>\n' },
        { name: 'app.js', content: 'let a = 1;\n' },
        { name: 'big.css', content: big('a') },
        { name: 'logo.png', content: Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex') },
      ],
      { name: '逐行差异' },
    );
    const diff = (path: string, token?: string) =>
      t.request({
        url: `/api/admin/projects/${id}/file-diff?path=${encodeURIComponent(path)}`,
        ...(token ? { token } : {}),
      });
    const asAdmin = async (path: string) => diff(path, await t.adminToken());
    // Only the live version: nothing to compare.
    expectFailure(await asAdmin('index.html'), 404, messages.review.fileDiff.noVersions);

    const v2 = await uploadProject(t, owner.token, {
      projectId: id,
      files: [
        { name: 'index.html', content: '<h1>二</h1>\n<p>同</p>\n' },
        { name: 'new.js', content: 'console.log(1);\n' },
        { name: 'big.css', content: big('b') },
        { name: 'logo.png', content: Buffer.from('89504e470d0a1a0a0000000d49484453', 'hex') },
      ],
    });
    expect(v2.statusCode, v2.body).toBe(200);
    const changed = (await get(t, `/api/admin/projects/${id}`)).diff.changed;
    expect(changed.map((c: { file: string; text: boolean }) => [c.file, c.text])).toEqual([
      ['big.css', true],
      ['index.html', true],
      ['logo.png', false],
    ]);

    const page = await asAdmin('index.html');
    expect(page.statusCode, page.body).toBe(200);
    expect(page.json().data).toEqual({
      path: 'index.html',
      from_version: 1,
      to_version: 2,
      old_size: Buffer.byteLength('\ufeff<h1>一</h1>\n<p>同</p>\n'),
      new_size: Buffer.byteLength('<h1>二</h1>\n<p>同</p>\n'),
      too_large: false,
      old_text: '<h1>一</h1>\n<p>同</p>\n',
      new_text: '<h1>二</h1>\n<p>同</p>\n',
    });
    // Added and removed files have one side only.
    expect((await asAdmin('new.js')).json().data).toMatchObject({ old_text: null, old_size: null });
    expect((await asAdmin('app.js')).json().data).toMatchObject({ new_text: null, new_size: null });
    // Beyond the bound: sizes, no text.
    expect((await asAdmin('big.css')).json().data).toMatchObject({
      too_large: true,
      old_text: null,
      new_text: null,
      new_size: FILE_DIFF_MAX_BYTES + 1,
    });
    expectFailure(await asAdmin('logo.png'), 400, messages.review.contentCheck.sourceNotText);
    expectFailure(await asAdmin('none.html'), 404, messages.review.contentCheck.sourceNotFound);
    expectFailure(
      await t.request({ url: `/api/admin/projects/${id}/file-diff`, token: await t.adminToken() }),
      400,
      messages.review.contentCheck.sourcePathRequired,
    );
    expectFailure(await diff('index.html', owner.token), 403);
    expectFailure(await diff('index.html'), 401);
    expectFailure(
      await t.request({
        url: '/api/admin/projects/99999/file-diff?path=index.html',
        token: await t.adminToken(),
      }),
      404,
      messages.project.notFound,
    );
  });
});

describe('dashboard figures', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('computes trends: this week against last week, null without a base', () => {
    expect(trendPercent(15, 10)).toBe(50);
    expect(trendPercent(5, 10)).toBe(-50);
    expect(trendPercent(2, 3)).toBe(-33.3);
    expect(trendPercent(0, 0)).toBe(0);
    expect(trendPercent(4, 0)).toBeNull();
  });

  it('counts projects by status, users, views, downloads, and weekly trends from the data', async () => {
    const owner = await t.createUser();
    await t.createUser();
    const pending = await upload(t, owner.token, '待审');
    const rejected = await upload(t, owner.token, '被拒');
    await review(t, rejected, 'reject', '不行');
    const { id: approved } = await liveProject(t, SIMPLE_SITE, { name: '通过', owner });
    const { id: published } = await liveProject(t, SIMPLE_SITE, { name: '精选', owner });
    await review(t, published, 'publish');

    // Move two projects (with their uploads and decisions) into last week, and record views.
    const db = t.ctx.db;
    const lastWeek = new Date(Date.now() - 9 * DAY).toISOString();
    for (const id of [pending, rejected]) {
      await db.updateTable('projects').set({ created_at: lastWeek }).where('id', '=', id).execute();
      await db
        .updateTable('deployments')
        .set({ created_at: lastWeek })
        .where('project_id', '=', id)
        .execute();
      await db
        .updateTable('review_comments')
        .set({ created_at: lastWeek })
        .where('project_id', '=', id)
        .execute();
    }
    const day = (ago: number) => new Date(Date.now() - ago * DAY).toISOString().slice(0, 10);
    await db
      .insertInto('project_daily_views')
      .values([
        { project_id: approved, day: day(0), views: 20 },
        { project_id: published, day: day(6), views: 10 },
        { project_id: approved, day: day(7), views: 15 },
        { project_id: published, day: day(13), views: 5 },
        { project_id: published, day: day(14), views: 1000 },
      ])
      .execute();
    await db.updateTable('projects').set({ view_count: 1030 }).where('id', '=', approved).execute();
    await db.updateTable('projects').set({ download_count: 4 }).where('id', '=', published).execute();

    const stats = await get(t, '/api/admin/stats');
    expect(stats.projects).toEqual({
      total: 4,
      pending: 1,
      approved: 1,
      published: 1,
      rejected: 1,
      taken_down: 0,
      live: 2,
    });
    expect(stats.users).toEqual({ total: 3, admins: 1, disabled: 0 });
    expect(stats.views).toEqual({ total: 1030 });
    expect(stats.downloads).toEqual({ total: 4 });
    expect(stats.weekly).toEqual({
      projects: { this_week: 2, last_week: 2, trend_percent: 0 },
      uploads: { this_week: 2, last_week: 2, trend_percent: 0 },
      approvals: { this_week: 2, last_week: 0, trend_percent: null },
      rejections: { this_week: 0, last_week: 1, trend_percent: -100 },
      views: { this_week: 30, last_week: 20, trend_percent: 50 },
      users: { this_week: 3, last_week: 0, trend_percent: null },
    });
    expect(Date.parse(stats.generated_at)).toBeGreaterThan(Date.now() - 60_000);
  });
});

describe('every setting of the settings table', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const put = async (body: unknown) =>
    t.request({ method: 'PUT', url: '/api/admin/config', token: await t.adminToken(), body });

  // Iterates the settings table, so a setting added there is covered here without a new test.
  it('stores, reads back and bounds every setting of the settings table', async () => {
    const changed = (key: SettingKey): unknown => {
      const d = settingOf(key);
      if (d.type === 'integer') return d.default + 1 <= d.max ? d.default + 1 : d.default - 1;
      if (d.type === 'enum') return d.options.find((o) => o !== d.default);
      if (d.type === 'boolean') return !d.default;
      return ['html', 'css'];
    };
    for (const key of SETTING_KEYS) {
      const d = settingOf(key);
      const value = changed(key);
      const res = await put({ [key]: value });
      expect(res.statusCode, key).toBe(200);
      expect(res.json().data.config[key], key).toEqual(value);
      // Read back from the database, not from the cache.
      t.ctx.services.settings.invalidate();
      const stored = await get(t, '/api/admin/config');
      expect(stored.config[key], key).toEqual(value);
      expect(stored.defaults[key], key).toEqual(d.default);
      // A public setting is in the public config at the place it names; any other is not.
      const pub = await get(t, '/api/config/public');
      const place = d.public === 'limits' ? pub.limits : d.public === 'top' ? pub : undefined;
      if (place) expect(place[key], key).toEqual(value);
      expect(key in pub.limits || key in pub, key).toBe(d.public !== undefined);
      if (d.type === 'integer') {
        const message = format(messages.review.configRange, {
          field: settingNameWithUnit(key),
          min: d.min,
          max: d.max,
        });
        for (const wrong of [d.min - 1, d.max + 1, d.min + 0.5]) {
          expect(expectFailure(await put({ [key]: wrong }), 400, message).errors?.[key]).toBe(message);
        }
      } else {
        expect((await put({ [key]: 42 })).statusCode, key).toBe(400);
      }
      expect((await put({ [key]: d.default })).statusCode, key).toBe(200);
    }
    expect((await get(t, '/api/admin/config')).config).toEqual(settingDefaults());
  });
});

describe('platform settings', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const put = async (body: unknown) =>
    t.request({ method: 'PUT', url: '/api/admin/config', token: await t.adminToken(), body });
  const defaults = {
    max_files_per_upload: DEFAULT_LIMITS.maxFilesPerUpload,
    max_file_bytes: DEFAULT_LIMITS.maxFileBytes,
    max_upload_bytes: DEFAULT_LIMITS.maxUploadBytes,
    max_archive_entries: DEFAULT_LIMITS.maxArchiveEntries,
    max_archive_uncompressed_bytes: DEFAULT_LIMITS.maxArchiveUncompressedBytes,
    allowed_extensions: DEFAULT_LIMITS.allowedExtensions,
    unknown_file_types: 'download',
    preview_ttl_seconds: DEFAULT_PREVIEW_TTL_SECONDS,
    max_user_storage_bytes: DEFAULT_USER_STORAGE_BYTES,
    max_uploads_per_hour: DEFAULT_UPLOADS_PER_HOUR,
    render_concurrency: 1,
    render_pages_per_browser: 50,
    render_allow_public_assets: false,
    custom_domains_require_approval: false,
  };

  it('gives everyone the public settings, in the shape the web app reads', async () => {
    expect((await t.request({ url: '/api/config/public' })).json()).toEqual({
      success: true,
      data: {
        limits: {
          max_files_per_upload: defaults.max_files_per_upload,
          max_file_bytes: defaults.max_file_bytes,
          max_upload_bytes: defaults.max_upload_bytes,
          max_archive_entries: defaults.max_archive_entries,
          max_archive_uncompressed_bytes: defaults.max_archive_uncompressed_bytes,
        },
        allowed_extensions: defaults.allowed_extensions,
        unknown_file_types: defaults.unknown_file_types,
        preview_ttl_seconds: defaults.preview_ttl_seconds,
        sites_origin: null,
        sites_port: null,
        sites_subdomains: false,
        mail_enabled: false,
      },
    });
  });

  it('shows the settings, their defaults and every extension that may be allowed', async () => {
    const data = await get(t, '/api/admin/config');
    expect(data).toEqual({
      config: defaults,
      defaults,
      known_extensions: expect.arrayContaining(['html', 'zip', 'wasm', 'bcmap', 'pfb', 'eot', 'glb']),
      sites_origin: null,
      // The test app serves sites on its one port, sandboxed (SITES_PORT=0).
      site_isolation: { mode: 'sandboxed', sites_port: null },
    });
    expect(data.known_extensions).not.toContain('php');
  });

  it('refuses invalid values field by field and changes nothing', async () => {
    const before = await get(t, '/api/admin/config');
    const cases: Array<[unknown, string, string]> = [
      [{ max_files_per_upload: 0 }, 'max_files_per_upload', '单次上传文件数必须是 1 到 10000 之间的整数'],
      [{ max_files_per_upload: 2.5 }, 'max_files_per_upload', '单次上传文件数必须是 1 到 10000 之间的整数'],
      [{ max_files_per_upload: '5' }, 'max_files_per_upload', '单次上传文件数必须是 1 到 10000 之间的整数'],
      [
        { preview_ttl_seconds: 10 },
        'preview_ttl_seconds',
        '预览链接有效期（秒）必须是 60 到 604800 之间的整数',
      ],
      [{ allowed_extensions: [] }, 'allowed_extensions', messages.review.configExtensionsRequired],
      [{ allowed_extensions: 'html,css' }, 'allowed_extensions', messages.review.configExtensionsList],
      [{ allowed_extensions: [1, 2] }, 'allowed_extensions', messages.review.configExtensionsList],
      [
        { allowed_extensions: ['html', 'css', ...Array.from({ length: 99 }, (_, i) => `x${i}`)] },
        'allowed_extensions',
        '允许的文件类型最多 100 种',
      ],
      [
        { allowed_extensions: ['html', 'php'] },
        'allowed_extensions',
        format(messages.review.configExtensionUnknown, { ext: 'php' }),
      ],
      [
        { allowed_extensions: ['html', '.EXE'] },
        'allowed_extensions',
        format(messages.review.configExtensionUnknown, { ext: 'exe' }),
      ],
      [
        { allowed_extensions: ['html', 'a/b'] },
        'allowed_extensions',
        format(messages.review.configExtensionInvalid, { ext: 'a/b' }),
      ],
      [{ unknown_file_types: 'delete' }, 'unknown_file_types', messages.review.configUnknownTypesInvalid],
      [{ max_file_bytes: 300 * 1024 * 1024 }, 'max_file_bytes', messages.review.configFileOverUpload],
      [{ colour: 'red' }, 'colour', '不支持的字段：colour'],
      // Named like Object.prototype's own members: each gets its message too (they got none).
      [{ constructor: 1 }, 'constructor', '不支持的字段：constructor'],
      [{ toString: 'x' }, 'toString', '不支持的字段：toString'],
      [{ hasOwnProperty: true }, 'hasOwnProperty', '不支持的字段：hasOwnProperty'],
    ];
    for (const [body, field, message] of cases) {
      const res = await put(body);
      const failure = expectFailure(res, 400, message);
      expect(failure.errors?.[field], JSON.stringify(body)).toBe(message);
    }
    expect(await get(t, '/api/admin/config')).toEqual(before);
  });

  it('applies a change at once to uploads, previews and the public config, and audits it', async () => {
    const audits = async () =>
      t.ctx.db.selectFrom('audit_logs').selectAll().where('action', '=', 'config.update').execute();
    const res = await put({
      max_files_per_upload: 2,
      allowed_extensions: ['html', '.CSS', 'css', 'zip'],
      unknown_file_types: 'refuse',
      preview_ttl_seconds: 600,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      success: true,
      message: messages.review.configSaved,
      data: {
        config: {
          ...defaults,
          max_files_per_upload: 2,
          allowed_extensions: ['html', 'css', 'zip'],
          unknown_file_types: 'refuse',
          preview_ttl_seconds: 600,
        },
      },
    });
    const pub = (await t.request({ url: '/api/config/public' })).json().data;
    expect(pub).toMatchObject({
      limits: { max_files_per_upload: 2 },
      allowed_extensions: ['html', 'css', 'zip'],
      unknown_file_types: 'refuse',
      preview_ttl_seconds: 600,
    });

    const owner = await t.createUser();
    const three = await uploadProject(t, owner.token, {
      files: [
        { name: 'index.html', content: '<p>1</p>' },
        { name: 'a.css', content: 'a{}' },
        { name: 'b.css', content: 'b{}' },
      ],
    });
    expectFailure(three, 413, format(messages.project.tooManyFiles, { n: 2 }));
    const txt = await uploadProject(t, owner.token, {
      files: [
        { name: 'index.html', content: '<p>1</p>' },
        { name: 'notes.txt', content: 'x' },
      ],
    });
    expectFailure(
      txt,
      400,
      format(messages.archive.entryTypeNotAllowed, { names: '"notes.txt"', list: '.html, .css, .zip' }),
    );
    const id = await upload(t, owner.token, '设置生效', [{ name: 'index.html', content: '<p>ok</p>' }]);
    const preview = await t.request({
      method: 'POST',
      url: `/api/projects/${id}/preview-token`,
      token: owner.token,
    });
    expect(preview.json().data.expires_in_seconds).toBe(600);

    const [entry] = await audits();
    expect(entry).toMatchObject({ actor_name: 'admin', target_type: 'config', ip: '127.0.0.1' });
    expect(JSON.parse(entry!.detail!)).toEqual({
      max_files_per_upload: { from: 20, to: 2 },
      allowed_extensions: { from: DEFAULT_LIMITS.allowedExtensions, to: ['html', 'css', 'zip'] },
      unknown_file_types: { from: 'download', to: 'refuse' },
      preview_ttl_seconds: { from: DEFAULT_PREVIEW_TTL_SECONDS, to: 600 },
    });

    // Saving the same values again (or nothing) is not a change: nothing new in the audit log.
    expect((await put({ max_files_per_upload: 2 })).statusCode).toBe(200);
    expect((await put({})).statusCode).toBe(200);
    expect(await audits()).toHaveLength(1);

    // Back to the defaults.
    expect((await put(defaults)).json().data.config).toEqual(defaults);
    expect((await t.request({ url: '/api/config/public' })).json().data.limits.max_files_per_upload).toBe(20);
  });
});

describe('audit log', () => {
  let t: TestApp;
  let ownerId: number;
  let projectId: number;
  beforeAll(async () => {
    t = await createTestApp();
    const owner = await t.createUser({ username: 'audited_owner' });
    await t.login(owner.username, owner.password);
    ownerId = owner.id;
    projectId = await upload(t, owner.token, '审计项目');
    await review(t, projectId, 'approve');
    await t.request({
      method: 'POST',
      url: '/api/auth/login',
      body: { username: 'audited_owner', password: 'wrong-password' },
      ip: '198.51.100.7',
    });
  });
  afterAll(() => t.close());

  const logs = async (q = '') => get(t, `/api/admin/audit-logs${q}`);

  it('lists entries newest first with actor, action label, target, detail, IP and time', async () => {
    const data = await logs();
    expect(data.pagination).toMatchObject({ current_page: 1, page_size: 20 });
    const [failed, approve] = data.logs;
    expect(failed).toMatchObject({
      action: 'auth.login_failed',
      action_label: '登录失败',
      actor: null,
      target_type: 'user',
      target_id: String(ownerId),
      detail: { login: 'audited_owner' },
      ip: '198.51.100.7',
    });
    expect(approve).toMatchObject({
      action: 'review.approve',
      action_label: '审核通过',
      actor: { username: 'admin', id: expect.any(Number) },
      target_type: 'project',
      target_id: String(projectId),
      // The version decided (a project has several).
      detail: { from: 'pending', to: 'approved', comment: null, version: 1 },
      ip: '127.0.0.1',
    });
    const ids = data.logs.map((l: { id: number }) => l.id);
    expect(ids).toEqual([...ids].sort((a: number, b: number) => b - a));
  });

  it('filters by actor, action or action group, target, IP and time, and pages', async () => {
    const actions = async (q: string) => (await logs(q)).logs.map((l: { action: string }) => l.action);
    expect(await actions('?actor=AUDITED')).toEqual(['project.upload', 'auth.login']);
    expect(await actions(`?action=review.approve`)).toEqual(['review.approve']);
    expect(await actions('?action=auth')).toEqual(['auth.login_failed', 'auth.login', 'auth.login']);
    expect(await actions(`?target_type=project&target_id=${projectId}`)).toEqual([
      'review.approve',
      'project.upload',
    ]);
    expect(await actions('?ip=198.51.100.7')).toEqual(['auth.login_failed']);
    expect(await actions('?actor=')).toHaveLength((await logs()).logs.length);

    const today = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + DAY).toISOString();
    expect((await logs(`?from=${today}&to=${today}`)).pagination.total_count).toBe(
      (await logs()).pagination.total_count,
    );
    expect((await logs(`?from=${encodeURIComponent(tomorrow)}`)).logs).toEqual([]);
    expect((await logs('?to=2000-01-01')).logs).toEqual([]);
    // A time without an offset is read as UTC (not refused, nor read in the server's zone).
    expect((await logs('?to=2000-01-01T23:59:59')).logs).toEqual([]);
    expect((await logs(`?from=${today}T00:00:00&to=${today}T23:59:59.999`)).pagination.total_count).toBe(
      (await logs()).pagination.total_count,
    );

    const page = await logs('?page_size=2&page=2');
    expect(page.logs).toHaveLength(2);
    expect(page.pagination.total_pages).toBe(Math.ceil(page.pagination.total_count / 2));

    for (const bad of ['from=yesterday', 'to=2024-13-45', 'from=2024-02-30', 'page_size=101', 'actor_id=x']) {
      const res = await t.request({ url: `/api/admin/audit-logs?${bad}`, token: await t.adminToken() });
      expectFailure(res, 400);
    }
    const badTime = await t.request({
      url: '/api/admin/audit-logs?from=yesterday',
      token: await t.adminToken(),
    });
    expect(badTime.json().errors.from).toBe(messages.review.auditTimeInvalid);
    // A NUL would reach the database, which PostgreSQL refuses in text: a field error on both.
    for (const field of ['actor', 'action', 'target_id', 'ip']) {
      const res = await t.request({
        url: `/api/admin/audit-logs?${field}=a%00b`,
        token: await t.adminToken(),
      });
      expectFailure(res, 400, messages.review.auditFilterInvalid);
      expect(res.json().errors[field]).toBe(messages.review.auditFilterInvalid);
    }
  });
});

describe('audit log names', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('names each user and project target as it is now, and as its deletion recorded it once gone', async () => {
    const owner = await t.createUser({ username: 'named_owner' });
    const gone = await t.createUser({ username: 'soon_gone' });
    await t.login(owner.username, owner.password);
    const projectId = await upload(t, owner.token, '有名字的项目');
    await review(t, projectId, 'approve');
    await t.request({
      method: 'POST',
      url: '/api/auth/login',
      body: { username: 'soon_gone', password: 'wrong-password' },
    });
    const deleted = await t.request({
      method: 'DELETE',
      url: `/api/admin/users/${gone.id}`,
      token: await t.adminToken(),
    });
    expect(deleted.statusCode).toBe(200);

    const { logs } = await get(t, '/api/admin/audit-logs?page_size=100');
    const named = (action: string, targetId: number) =>
      logs.find(
        (l: { action: string; target_id: string }) => l.action === action && l.target_id === String(targetId),
      )?.target_name;
    expect(named('review.approve', projectId)).toBe('有名字的项目');
    expect(named('project.upload', projectId)).toBe('有名字的项目');
    expect(named('auth.login', owner.id)).toBe('named_owner');
    // The user is gone: the failed sign-in about them still names them, from user.delete's record.
    expect(named('auth.login_failed', gone.id)).toBe('soon_gone');
    expect(named('user.delete', gone.id)).toBe('soon_gone');
    // Said to be gone, so the page names them without a link; what still exists is not.
    const goneOf = (action: string, targetId: number) =>
      logs.find(
        (l: { action: string; target_id: string }) => l.action === action && l.target_id === String(targetId),
      )?.target_gone;
    expect(goneOf('auth.login_failed', gone.id)).toBe(true);
    expect(goneOf('review.approve', projectId)).toBe(false);
    expect(goneOf('auth.login', owner.id)).toBe(false);
  });

  it('leaves the name empty where there is none to give', async () => {
    const put = await t.request({
      method: 'PUT',
      url: '/api/admin/config',
      body: { max_files_per_upload: 30 },
      token: await t.adminToken(),
    });
    expect(put.statusCode).toBe(200);
    const { logs } = await get(t, '/api/admin/audit-logs?target_type=config');
    expect(logs[0]).toMatchObject({ action: 'config.update', target_name: null });
  });
});

describe('admin only', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('refuses every admin call to users (403) and visitors (401), changing nothing', async () => {
    const user = await t.createUser();
    const id = await upload(t, user.token, '自己的项目');
    const calls: Array<{ method?: string; url: string; body?: unknown }> = [
      { url: '/api/admin/projects' },
      { url: '/api/admin/projects/pending' },
      { url: `/api/admin/projects/${id}` },
      { url: `/api/admin/projects/${id}/download` },
      { url: '/api/admin/stats' },
      { url: '/api/admin/audit-logs' },
      { url: '/api/admin/config' },
      { method: 'PUT', url: '/api/admin/config', body: { max_files_per_upload: 1 } },
      { method: 'POST', url: `/api/admin/projects/${id}/review`, body: { action: 'approve' } },
      { method: 'POST', url: '/api/admin/projects/batch', body: { projectIds: [id], action: 'delete' } },
    ];
    for (const call of calls) {
      const asUser = await t.request({ ...call, token: user.token });
      expectFailure(asUser, 403, messages.common.adminOnly);
      expectFailure(await t.request(call), 401);
    }
    const p = (await t.request({ url: `/api/projects/${id}`, token: user.token })).json().data.project;
    expect(p).toMatchObject({ status: 'pending', download_count: 0 });
    expect((await get(t, '/api/admin/config')).config.max_files_per_upload).toBe(20);
  });
});
