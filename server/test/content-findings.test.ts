/**
 * What the content check tells ordinary uploaders (docs/content-check.md "Where sites live",
 * "Runtime rules"): an outside review's Vite/React build and a student's broken site. Root-absolute
 * notes only where sites live under a path, and never advice that breaks a client-side router;
 * a router with relative asset paths noted; notes that follow the project's switches; missing
 * files named once, as what they are; the review list's summary counting the problems.
 */
import type { ContentCheckReport, ContentFinding } from '@sitehall/contracts';
import { CONTENT_CHECK_FIXES } from '@sitehall/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkSiteContent, type SiteFile } from '../src/content-check/index.js';
import { mergeRuntime } from '../src/content-check/runtime.js';
import { sitesAtHostRoot } from '../src/domain/site-urls.js';
import { emptyObservations, type Observations } from '../src/render/render-page.js';
import { createTestApp, type TestApp, type UploadFile, uploadProject } from './helpers.js';

function site(files: Record<string, string>): SiteFile[] {
  return Object.entries(files).map(([path, content]) => {
    const bytes = Buffer.from(content);
    return {
      path,
      size: bytes.length,
      extension: path.slice(path.lastIndexOf('.') + 1),
      read: async (n: number) => bytes.subarray(0, n),
    };
  });
}

const kinds = (r: ContentCheckReport, kind: string) => r.findings.filter((f) => f.kind === kind);

/** A Vite build of a React app with a router: what `npm run build` gives with `base: '/'`. */
const VITE_ROOT = {
  'index.html':
    '<!doctype html><html><head><script type="module" crossorigin src="/assets/index-4f2a.js"></script>' +
    '<link rel="stylesheet" crossorigin href="/assets/index-9c1b.css"></head><body><div id="root"></div></body></html>',
  'assets/index-4f2a.js': 'addEventListener("popstate", () => {}); history.pushState({}, "", "/users/42");',
  'assets/index-9c1b.css': 'body { margin: 0 }',
};

/** The same build after the old advice, `base: "./"`. */
const VITE_RELATIVE = {
  ...VITE_ROOT,
  'index.html': VITE_ROOT['index.html']
    .replace('src="/assets/', 'src="./assets/')
    .replace('href="/assets/', 'href="./assets/'),
};

async function rendered(report: ContentCheckReport, obs: Partial<Observations>): Promise<ContentCheckReport> {
  return mergeRuntime(report, { ...emptyObservations(), ...obs }, false, new Date().toISOString());
}

describe('root-absolute paths follow where the install serves sites', () => {
  it('knows which installs serve each site at the root of its own host', () => {
    // The default install: each site at {name}.localhost on the sites port, /sites/{name}/ moves there.
    expect(sitesAtHostRoot({ sitesSubdomains: false, sitesPort: 3001 })).toBe(true);
    expect(sitesAtHostRoot({ sitesOrigin: 'https://s.example', sitesSubdomains: true, sitesPort: 0 })).toBe(
      true,
    );
    // A shared host with /sites/{name}/, or the app's own port, sandboxed.
    expect(sitesAtHostRoot({ sitesOrigin: 'https://s.example', sitesSubdomains: false, sitesPort: 0 })).toBe(
      false,
    );
    expect(sitesAtHostRoot({ sitesSubdomains: false, sitesPort: 0 })).toBe(false);
  });

  describe('on the default install (a sites port)', () => {
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp({ sitesPort: 3551 });
    });
    afterAll(() => t.close());

    it('notes nothing about a Vite build with /assets/ paths, to its owner or its reviewer', async () => {
      const owner = await t.createUser();
      const files: UploadFile[] = Object.entries(VITE_ROOT).map(([name, content]) => ({ name, content }));
      const res = await uploadProject(t, owner.token, { name: 'Vite 应用', files });
      expect(res.statusCode, res.body).toBe(201);
      const project = res.json().data.project;
      expect(project.usability_findings).toEqual([]);
      const review = await t.request({
        url: `/api/admin/projects/${project.id}`,
        token: await t.adminToken(),
      });
      expect(review.statusCode, review.body).toBe(200);
      expect(kinds(review.json().data.content_check, 'root_absolute_link')).toEqual([]);
    });

    it('drops the root-absolute notes of a report stored before the check knew', async () => {
      const owner = await t.createUser();
      const files: UploadFile[] = [{ name: 'index.html', content: '<p>x</p>' }];
      const res = await uploadProject(t, owner.token, { name: '旧报告', files });
      const id = res.json().data.project.id as number;
      const old = (await checkSiteContent(site(VITE_ROOT), 'index.html')) as ContentCheckReport;
      expect(kinds(old, 'root_absolute_link')).toHaveLength(2);
      await t.ctx.db
        .updateTable('deployments')
        .set({ content_check: JSON.stringify(old) })
        .where('project_id', '=', id)
        .execute();
      const mine = await t.request({ url: `/api/projects/${id}`, token: owner.token });
      expect(mine.json().data.project.usability_findings).toEqual([]);
      const review = await t.request({ url: `/api/admin/projects/${id}`, token: await t.adminToken() });
      const check = review.json().data.content_check as ContentCheckReport;
      expect(kinds(check, 'root_absolute_link')).toEqual([]);
      expect(check.usability_count).toBe(0);
    });
  });

  it('where sites live under /sites/{name}/, keeps a note whose advice does not break a router', async () => {
    const report = await checkSiteContent(site(VITE_ROOT), 'index.html', { rootPathsWork: false });
    const notes = kinds(report, 'root_absolute_link');
    expect(notes.map((f) => f.severity)).toEqual(['info', 'info']);
    expect(notes[0]!.message).not.toContain('改为相对地址');
    const fix = CONTENT_CHECK_FIXES.root_absolute_link;
    expect(fix).not.toContain('base: "./"');
    expect(fix).toContain('base: "{path}"');
    // A build made with that advice (base: '/sites/vite/') is the site's real path: no note, nothing missing.
    const based = await checkSiteContent(
      site({
        ...VITE_ROOT,
        'index.html': VITE_ROOT['index.html'].replaceAll('/assets/', '/sites/vite/assets/'),
      }),
      'index.html',
    );
    expect(based.findings).toEqual([]);
  });

  it('notes a router whose entry page loads its files by relative paths: deep links break', async () => {
    const relative = await checkSiteContent(site(VITE_RELATIVE), 'index.html', { rootPathsWork: true });
    expect(relative.findings).toEqual([]);
    const after = await rendered(relative, { historyRouting: true });
    const notes = kinds(after, 'relative_assets');
    expect(notes.map((f) => [f.severity, f.category])).toEqual([['low', 'usability']]);
    expect(notes[0]!.message).toContain('“./assets/index-4f2a.js”');
    expect(notes[0]!.message).toContain('/users/42');
    expect(CONTENT_CHECK_FIXES.relative_assets).toContain('base: "/"');
    // The same build with /assets/ paths, or relative paths without such a router: nothing to say.
    const root = await checkSiteContent(site(VITE_ROOT), 'index.html', { rootPathsWork: true });
    expect(kinds(await rendered(root, { historyRouting: true }), 'relative_assets')).toEqual([]);
    expect(kinds(await rendered(relative, { historyRouting: false }), 'relative_assets')).toEqual([]);
  });
});

describe('findings a project has answered', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('drops the note to turn on 单页应用回退 from the review detail once it is on', async () => {
    const owner = await t.createUser();
    const files: UploadFile[] = [
      { name: 'index.html', content: '<div id="app"></div><script src="app.js"></script>' },
      { name: 'app.js', content: 'addEventListener("popstate", () => {})' },
    ];
    const res = await uploadProject(t, owner.token, { name: '前端路由审核', files });
    const id = res.json().data.project.id as number;
    const row = await t.ctx.db
      .selectFrom('deployments')
      .select(['id', 'content_check'])
      .where('project_id', '=', id)
      .executeTakeFirstOrThrow();
    const merged = await rendered(JSON.parse(row.content_check!) as ContentCheckReport, {
      historyRouting: true,
    });
    await t.ctx.db
      .updateTable('deployments')
      .set({ content_check: JSON.stringify(merged) })
      .where('id', '=', row.id)
      .execute();
    const admin = await t.adminToken();
    const routing = async () => {
      const review = await t.request({ url: `/api/admin/projects/${id}`, token: admin });
      expect(review.statusCode, review.body).toBe(200);
      return kinds(review.json().data.content_check, 'history_routing').length;
    };
    expect(await routing()).toBe(1);
    const on = await t.request({
      method: 'PUT',
      url: `/api/projects/${id}`,
      token: owner.token,
      body: { spa_fallback: true },
    });
    expect(on.statusCode, on.body).toBe(200);
    expect(await routing()).toBe(0);
  });

  it('counts the problems of a broken site in the review list, beside its risk level', async () => {
    const owner = await t.createUser();
    const tag = `坏站点${Date.now()}`;
    const files: UploadFile[] = [
      {
        name: 'index.html',
        content: [
          '<link rel="stylesheet" href="css/style.css"><script src="js/app.js"></script>',
          '<img src="img/a.png"><img src="img/b.png"><a href="Page.html">下一页</a>',
          '<script src="https://cdn.example.com/x.js"></script>',
        ].join('\n'),
      },
      { name: 'page.html', content: '<p>下一页</p>' },
    ];
    const res = await uploadProject(t, owner.token, { name: tag, files });
    expect(res.statusCode, res.body).toBe(201);
    const list = await t.request({
      url: `/api/admin/projects?search=${encodeURIComponent(tag)}`,
      token: await t.adminToken(),
    });
    const row = list.json().data.projects[0];
    expect(row.content_check.level).toBe('low');
    expect(row.content_check.usability_problems).toBe(5);
  });
});

describe('missing files, named once as what they are', () => {
  it("explains a file on the student's own computer", async () => {
    const report = await checkSiteContent(
      site({
        'index.html':
          '<img src="C:\\Users\\stu\\Desktop\\pic.jpg">\n<img src="file:///C:/Users/stu/Desktop/b.png">\n<link rel="stylesheet" href="D:/作业/style.css">',
      }),
      'index.html',
    );
    const found = kinds(report, 'missing_file').map((f) => [f.line, f.message]);
    expect(found).toEqual([
      [
        1,
        '引用了你自己电脑上的文件“C:\\Users\\stu\\Desktop\\pic.jpg”：访客的电脑上没有这个文件，页面会加载失败。请把文件放进站点文件夹，改用相对路径（如 images/pic.jpg）',
      ],
      [2, expect.stringContaining('“file:///C:/Users/stu/Desktop/b.png”')],
      [3, expect.stringContaining('“D:/作业/style.css”')],
    ]);
  });

  it('suggests the name whose case differs, and reports a missing root-absolute file', async () => {
    const report = await checkSiteContent(
      site({
        'index.html':
          '<a href="Page.html">下一页</a>\n<img src="./Images/Logo.PNG">\n<script src="/js/app.js"></script>',
        'page.html': '<p>x</p>',
        'images/logo.png': 'x',
      }),
      'index.html',
      { rootPathsWork: true },
    );
    expect(kinds(report, 'missing_file').map((f) => [f.line, f.message])).toEqual([
      [1, '引用的文件不在上传内容中：“Page.html”，是否应为 page.html？网址区分大小写'],
      [2, '引用的文件不在上传内容中：“./Images/Logo.PNG”，是否应为 ./images/logo.png？网址区分大小写'],
      [3, '引用的文件不在上传内容中：“/js/app.js”，打开页面时会加载失败'],
    ]);
  });

  it('reads a refused missing script or stylesheet as a missing file, listed once with the static one', async () => {
    const report = await checkSiteContent(
      site({
        'index.html': '<link rel="stylesheet" href="css/style.css">\n<script src="js/app.js"></script>',
      }),
      'index.html',
    );
    expect(kinds(report, 'missing_file')).toHaveLength(2);
    const after = await rendered(report, {
      missing: ['/css/style.css', '/js/app.js', '/img/late.png'],
      consoleErrors: [
        "Refused to apply style from 'http://p6.localhost:3001/css/style.css' because its MIME type ('text/plain') is not a supported stylesheet MIME type, and strict MIME type checking is enabled.",
        "Refused to execute script from 'http://p6.localhost:3001/js/app.js' because its MIME type ('text/plain') is not executable, and strict MIME type checking is enabled.",
        "Refused to execute script from 'http://p6.localhost:3001/js/extra.js' because its MIME type ('text/plain') is not executable, and strict MIME type checking is enabled.",
      ],
    });
    expect(kinds(after, 'console_error')).toEqual([]);
    const missing = kinds(after, 'missing_file').map((f) => f.message);
    expect(missing).toHaveLength(4);
    expect(missing.filter((m) => m.includes('css/style.css'))).toHaveLength(1);
    expect(missing.filter((m) => m.includes('js/app.js'))).toHaveLength(1);
    expect(missing).toContain('页面运行时加载的文件不存在：“/img/late.png”');
    expect(missing).toContain('页面运行时加载的文件不存在：“/js/extra.js”');
    expect(after.usability_count).toBe(4);
  });

  it('does not list the root "/" of a site without an entry page as a missing file', async () => {
    const report = await checkSiteContent(site({ 'home.html': '<p>x</p>' }), null);
    const after = await rendered(report, { missing: ['/'] });
    expect(after.findings.map((f: ContentFinding) => f.kind)).toEqual(['missing_entry']);
  });
});
