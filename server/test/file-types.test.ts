/**
 * Real sites upload as shipped (docs/decisions/uploads.md "File types"): files of a type that is not web
 * content are kept and served as downloads only, what real sites load is web content, and
 * executables and server-side scripts still refuse the whole upload, every one named at once.
 */
import zlib from 'node:zlib';
import { format, messages } from '@sitehall/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestApp,
  expectFailure,
  liveProject,
  makeZip,
  projectRowCounts,
  review,
  type TestApp,
  uploadProject,
} from './helpers.js';

const PFB = Buffer.from([0x80, 0x01, 0x10, 0x00, 0x00, 0x00, 0x25, 0x21, 0x50, 0x53]);
const BCMAP = Buffer.from([0xe0, 0x01, 0x00, 0x00, 0x55, 0xaa, 0x10, 0x20]);
/** A minimal Windows PE header: "MZ", the PE offset at 0x3c, "PE\0\0" there. */
function peFile(): Buffer {
  const pe = Buffer.alloc(256);
  pe.write('MZ', 0, 'latin1');
  pe.writeUInt32LE(128, 0x3c);
  pe.write('PE\0\0', 128, 'latin1');
  return pe;
}

/** A TypeDoc / npm-package-like tree with the files that used to refuse it. */
const SHIPPED: Record<string, string | Buffer> = {
  'docs/index.html': '<!doctype html><title>文档</title><script src="app.js"></script>',
  'docs/app.js': 'fetch("html.meta.json.gz").then((r) => r.arrayBuffer());',
  'docs/LICENSE': 'MIT License\n\nCopyright (c) 2024',
  'docs/.nojekyll': '',
  'docs/types/index.d.ts': 'export declare const a: number;',
  'docs/src/theme.scss': '$accent: #09f;\nbody { color: $accent; }',
  'docs/config.yml': 'title: 文档\n',
  'docs/html.meta.json.gz': zlib.gzipSync(Buffer.from('{"files":[]}')),
  'docs/fonts/a.pfb': PFB,
  'docs/cmaps/UniGB-UCS2-H.bcmap': BCMAP,
};

const DOWNLOAD_ONLY = ['LICENSE', 'config.yml', 'html.meta.json.gz', 'src/theme.scss', 'types/index.d.ts'];

describe('files of other types', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  const setConfig = async (body: Record<string, unknown>) => {
    const res = await t.request({
      method: 'PUT',
      url: '/api/admin/config',
      token: await t.adminToken(),
      body,
    });
    expect(res.statusCode, res.body).toBe(200);
  };

  it('uploads a site as shipped and lists its download-only files to the owner and the reviewer', async () => {
    const owner = await t.createUser();
    const res = await uploadProject(t, owner.token, {
      name: '照原样上传',
      files: [{ name: 'docs.zip', content: await makeZip(SHIPPED) }],
    });
    expect(res.statusCode, res.body).toBe(201);
    const id = res.json().data.project.id as number;

    const detail = await t.request({ url: `/api/projects/${id}`, token: owner.token });
    const files = detail.json().data.project.files as Array<{ file_name: string; download_only: boolean }>;
    // The empty .nojekyll is a marker for another tool: dropped.
    expect(files.map((f) => f.file_name)).not.toContain('.nojekyll');
    expect(files.filter((f) => f.download_only).map((f) => f.file_name)).toEqual(DOWNLOAD_ONLY);
    expect(files.filter((f) => !f.download_only).map((f) => f.file_name)).toEqual([
      'app.js',
      'cmaps/UniGB-UCS2-H.bcmap',
      'fonts/a.pfb',
      'index.html',
    ]);

    const admin = await t.request({ url: `/api/admin/projects/${id}`, token: await t.adminToken() });
    expect(admin.statusCode).toBe(200);
    const adminFiles = admin.json().data.project.files as Array<{
      file_name: string;
      download_only: boolean;
    }>;
    expect(adminFiles.filter((f) => f.download_only).map((f) => f.file_name)).toEqual(DOWNLOAD_ONLY);
  });

  it('serves download-only files as attachments a page can still fetch, web types with their type', async () => {
    const { id } = await liveProject(t, [{ name: 'docs.zip', content: await makeZip(SHIPPED) }], {
      name: '下载文件',
    });
    for (const file of DOWNLOAD_ONLY) {
      const res = await t.request({ url: `/sites/${id}/${file}` });
      expect(res.statusCode, file).toBe(200);
      expect(res.headers['content-type'], file).toBe('application/octet-stream');
      expect(res.headers['content-disposition'], file).toMatch(/^attachment; filename="/);
      expect(res.headers['x-content-type-options'], file).toBe('nosniff');
      expect(res.headers['access-control-allow-origin'], file).toBe('*');
    }
    const gz = await t.request({ url: `/sites/${id}/html.meta.json.gz` });
    expect(gz.rawPayload.equals(SHIPPED['docs/html.meta.json.gz'] as Buffer)).toBe(true);

    const pfb = await t.request({ url: `/sites/${id}/fonts/a.pfb` });
    expect(pfb.headers['content-type']).toBe('application/x-font-type1');
    expect(pfb.headers['content-disposition']).toBeUndefined();
    const bcmap = await t.request({ url: `/sites/${id}/cmaps/UniGB-UCS2-H.bcmap` });
    expect(bcmap.statusCode).toBe(200);
    expect(bcmap.rawPayload.equals(BCMAP)).toBe(true);
  });

  // filename*'s value kept ' ( ) * as they were (encodeURIComponent's), which RFC 8187's
  // attr-char excludes: a ' there is the separator of the charset and the language.
  it("names a download whose name has ' ( ) * with every one of them percent-encoded", async () => {
    const { id } = await liveProject(
      t,
      [
        { name: 'index.html', content: '<p>说明</p>' },
        { name: "it's (v1)*说明.md", content: '# 说明' },
      ],
      { name: '下载文件名' },
    );
    const res = await t.request({ url: `/sites/${id}/${encodeURIComponent("it's (v1)*说明.md")}` });
    expect(res.statusCode).toBe(200);
    const header = res.headers['content-disposition'] as string;
    expect(header).toBe(
      `attachment; filename="it's (v1)*__.md"; filename*=UTF-8''it%27s%20%28v1%29%2A%E8%AF%B4%E6%98%8E.md`,
    );
  });

  it('takes pdf.js fonts (CFF under .pfb) and empty web files as shipped, zipped or as a folder', async () => {
    // The head of pdf.js's web/standard_fonts/FoxitDingbats.pfb: bare CFF data, version 1.0.
    const cff = Buffer.from([0x01, 0x00, 0x04, 0x02, 0x00, 0x01, 0x01, 0x01, 0x12, 0x46, 0x6f, 0x78]);
    const site = {
      'dist/index.html': '<!doctype html><title>文档</title><link rel="stylesheet" href="vp-icons.css">',
      'dist/vp-icons.css': '',
      'dist/web/standard_fonts/FoxitDingbats.pfb': cff,
    };
    const zipped = await liveProject(t, [{ name: 'dist.zip', content: await makeZip(site) }], {
      name: '空文件',
    });
    const folder = await liveProject(
      t,
      Object.entries(site).map(([name, content]) => ({ name, content })),
      { name: '空文件文件夹' },
    );
    for (const { id } of [zipped, folder]) {
      const empty = await t.request({ url: `/sites/${id}/vp-icons.css` });
      expect(empty.statusCode).toBe(200);
      expect(empty.headers['content-type']).toMatch(/^text\/css/);
      expect(empty.headers['content-length']).toBe('0');
      const font = await t.request({ url: `/sites/${id}/web/standard_fonts/FoxitDingbats.pfb` });
      expect(font.statusCode).toBe(200);
      expect(font.rawPayload.equals(cff)).toBe(true);
    }
    // A file picked on its own that is empty is still refused, as the upload form says.
    const owner = await t.createUser();
    const res = await uploadProject(t, owner.token, {
      name: '空页面',
      files: [
        { name: 'index.html', content: '<p>x</p>' },
        { name: 'empty.css', content: '' },
      ],
    });
    expectFailure(res, 400, '文件 "empty.css" 为空文件');
  });

  it('refuses executables and server-side scripts by extension, naming all of them, leaving nothing', async () => {
    const owner = await t.createUser();
    const before = await projectRowCounts(t);
    const res = await uploadProject(t, owner.token, {
      files: [
        {
          name: 'bad.zip',
          content: await makeZip({
            'index.html': '<p>x</p>',
            'setup.exe': 'x',
            'api/upload.php': '<?php echo 1;',
            'tools/Run.EXE': 'x',
          }),
        },
      ],
    });
    const failure = expectFailure(
      res,
      400,
      format(messages.archive.executable, { names: '"setup.exe"、"api/upload.php"、"tools/Run.EXE"' }),
    );
    expect(failure.errors?.files).toBe(failure.message);
    expect(await projectRowCounts(t)).toEqual(before);
  });

  it('refuses a Windows program renamed .png by its bytes', async () => {
    const owner = await t.createUser();
    const res = await uploadProject(t, owner.token, {
      files: [
        { name: 'x.zip', content: await makeZip({ 'index.html': '<p>x</p>', 'img/logo.png': peFile() }) },
      ],
    });
    expectFailure(res, 400, format(messages.archive.executable, { names: '"img/logo.png"' }));
  });

  it('names the first 20 of many offending files, and how many there are', async () => {
    const owner = await t.createUser();
    const entries: Record<string, string> = { 'index.html': '<p>x</p>' };
    for (let i = 0; i < 25; i++) entries[`cgi/s${String(i).padStart(2, '0')}.php`] = '<?php';
    const res = await uploadProject(t, owner.token, {
      files: [{ name: 'many.zip', content: await makeZip(entries) }],
    });
    const { message } = expectFailure(res, 400);
    expect(message).toContain('"cgi/s19.php" 等 25 个文件');
    expect(message).not.toContain('s20.php');
  });

  it('skips or refuses other types when the admin says so', async () => {
    const owner = await t.createUser();
    const site = async () => [{ name: 'docs.zip', content: await makeZip(SHIPPED) }];
    try {
      await setConfig({ unknown_file_types: 'skip' });
      const skipped = await uploadProject(t, owner.token, { name: '跳过其他类型', files: await site() });
      expect(skipped.statusCode, skipped.body).toBe(201);
      const detail = await t.request({
        url: `/api/projects/${skipped.json().data.project.id}`,
        token: owner.token,
      });
      const names = (detail.json().data.project.files as Array<{ file_name: string }>).map(
        (f) => f.file_name,
      );
      expect(names).toEqual(['app.js', 'cmaps/UniGB-UCS2-H.bcmap', 'fonts/a.pfb', 'index.html']);

      await setConfig({ unknown_file_types: 'refuse' });
      const before = await projectRowCounts(t);
      const refused = await uploadProject(t, owner.token, { name: '拒绝其他类型', files: await site() });
      const { message } = expectFailure(refused, 400);
      // Named as in the archive, in its order; the empty marker is refused too.
      expect(message).toContain(
        '不支持的文件类型："docs/LICENSE"、"docs/.nojekyll"、"docs/types/index.d.ts"、"docs/src/theme.scss"、' +
          '"docs/config.yml"、"docs/html.meta.json.gz"。支持的格式：.zip, .rar, .7z, .html',
      );
      expect(await projectRowCounts(t)).toEqual(before);
    } finally {
      await setConfig({ unknown_file_types: 'download' });
    }
  });

  it('lets an admin allow any other extension as web content, but never an executable one', async () => {
    const adminToken = await t.adminToken();
    const current = (await t.request({ url: '/api/admin/config', token: adminToken })).json().data.config;
    const refused = await t.request({
      method: 'PUT',
      url: '/api/admin/config',
      token: adminToken,
      body: { allowed_extensions: [...current.allowed_extensions, 'exe'] },
    });
    expectFailure(refused, 400, format(messages.review.configExtensionUnknown, { ext: 'exe' }));
    try {
      await setConfig({ allowed_extensions: [...current.allowed_extensions, 'yml'] });
      const owner = await t.createUser();
      const res = await uploadProject(t, owner.token, {
        name: '允许 yml',
        files: [
          { name: 'index.html', content: '<p>x</p>' },
          { name: 'config.yml', content: 'a: 1' },
        ],
      });
      expect(res.statusCode, res.body).toBe(201);
      const id = res.json().data.project.id as number;
      const detail = await t.request({ url: `/api/projects/${id}`, token: owner.token });
      expect(detail.json().data.project.files).toContainEqual(
        expect.objectContaining({ file_name: 'config.yml', download_only: false, mime_type: 'text/yaml' }),
      );
      expect((await review(t, id, 'approve')).statusCode).toBe(200);
    } finally {
      await setConfig({ allowed_extensions: current.allowed_extensions });
    }
  });
});
