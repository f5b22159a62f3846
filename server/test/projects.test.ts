import { createHash } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { DEFAULT_LIMITS, messages } from '@sitehall/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTestApp,
  expectFailure,
  listenPort,
  listTree,
  makeZip,
  multipart,
  projectRowCounts,
  SIMPLE_SITE,
  type TestApp,
  unzip,
  uploadProject,
} from './helpers.js';

describe('projects', () => {
  let t: TestApp;
  let owner: Awaited<ReturnType<TestApp['createUser']>>;
  let other: Awaited<ReturnType<TestApp['createUser']>>;
  const blobsDir = () => path.join(t.dataDir, 'blobs');
  const stagingDir = () => path.join(t.dataDir, 'staging');

  beforeAll(async () => {
    t = await createTestApp();
    owner = await t.createUser();
    other = await t.createUser();
  });
  afterAll(() => t.close());

  describe('uploading', () => {
    it('creates a pending project from loose files and folders, keeping relative paths', async () => {
      const res = await uploadProject(t, owner.token, {
        name: '  我的站点  ',
        description: ' 一个测试站点 ',
        files: [
          { name: 'mysite/index.html', content: '<!doctype html><title>首页</title>' },
          { name: 'mysite/css/app.css', content: 'body{margin:0}' },
          { name: 'mysite/图片/说明.txt', content: '中文文件名' },
          { name: 'mysite/.DS_Store', content: 'junk' },
        ],
      });
      expect(res.statusCode).toBe(201);
      const p = res.json().data.project;
      expect(p).toMatchObject({
        name: '我的站点',
        project_name: '我的站点',
        description: '一个测试站点',
        status: 'pending',
        upload_type: 'files',
        entry_file: 'index.html',
        file_count: 3,
        is_public: true,
        access_url: null,
        owner: { username: owner.username },
      });
      expect(p.files.map((f: { file_name: string }) => f.file_name)).toEqual([
        'css/app.css',
        'index.html',
        '图片/说明.txt',
      ]);
      expect(p.files.find((f: { file_name: string }) => f.file_name === 'css/app.css')).toMatchObject({
        file_type: 'css',
        file_size: 14,
        mime_type: expect.stringMatching(/^text\/css/),
      });
      expect(p.file_size).toBe(p.files.reduce((n: number, f: { file_size: number }) => n + f.file_size, 0));
      expect(listTree(stagingDir())).toEqual([]);
    });

    it('extracts a zip, unwraps its single folder and finds the entry file', async () => {
      const zip = await makeZip({ 'site/index.html': '<h1>zip</h1>', 'site/js/app.js': 'console.log(1)' });
      const res = await uploadProject(t, owner.token, {
        name: 'Zip 站点',
        files: [{ name: 'site.zip', content: zip }],
      });
      expect(res.statusCode).toBe(201);
      const p = res.json().data.project;
      expect(p.upload_type).toBe('zip');
      expect(p.upload_source).toBe('zip');
      expect(p.entry_file).toBe('index.html');
      expect(p.files.map((f: { file_name: string }) => f.file_name)).toEqual(['index.html', 'js/app.js']);
    });

    it('stores identical files once across projects', async () => {
      const before = listTree(blobsDir()).filter((f) => /[0-9a-f]{64}$/.test(f)).length;
      const content = `<p>shared ${Date.now()}</p>`;
      await uploadProject(t, owner.token, { name: '共享一', files: [{ name: 'index.html', content }] });
      await uploadProject(t, other.token, { name: '共享二', files: [{ name: 'index.html', content }] });
      const after = listTree(blobsDir()).filter((f) => /[0-9a-f]{64}$/.test(f)).length;
      expect(after - before).toBe(1);
    });

    it('stores identical files of one upload once, named by the hash of their bytes', async () => {
      const before = listTree(blobsDir()).filter((f) => /[0-9a-f]{64}$/.test(f));
      // Over one socket read, with Chinese text: hashed while it streams into staging.
      const content = `<p>同一份内容 ${Date.now()}</p>\n`.repeat(20_000);
      const res = await uploadProject(t, owner.token, {
        name: '重复文件',
        files: [
          { name: 'index.html', content },
          { name: 'copy/index.html', content },
        ],
      });
      expect(res.statusCode).toBe(201);
      const sha256 = createHash('sha256').update(content).digest('hex');
      const added = listTree(blobsDir()).filter((f) => /[0-9a-f]{64}$/.test(f) && !before.includes(f));
      expect(added.map((f) => path.basename(f))).toEqual([sha256]);
      expect(fs.readFileSync(path.join(blobsDir(), added[0]!), 'utf8')).toBe(content);
      const files = res.json().data.project.files as Array<{ file_name: string; mime_type: string }>;
      expect(files.map((f) => f.file_name)).toEqual(['copy/index.html', 'index.html']);
      expect(files[0]!.mime_type).toBe('text/html; charset=utf-8');
      expect(listTree(stagingDir())).toEqual([]);
    });

    type Refusal = [string, Parameters<typeof uploadProject>[2], number, Record<string, string | RegExp>];
    const refusals: Refusal[] = [
      ['a missing name', { name: '', files: SIMPLE_SITE }, 400, { project_name: '请输入项目名称' }],
      [
        'a one-character name after trimming',
        { name: ' 站 ', files: SIMPLE_SITE },
        400,
        { project_name: '项目名称至少需要2个字符' },
      ],
      [
        'a name over 50 characters',
        { name: '名'.repeat(51), files: SIMPLE_SITE },
        400,
        { project_name: '项目名称不能超过50个字符' },
      ],
      ...(
        [
          '站\u0000点',
          '站\n点',
          'abc\u202egpj.exe',
          '站\u2066点',
          // Zero-width and other invisible characters: "我的站点\u200b" reads as "我的站点".
          '我的站点\u200b',
          '我的\u200d站点',
          '站\u200e点',
          '站\ufeff点',
          '站\u00ad点',
          '站点\u3164',
          '\u2800\u2800',
          '\u200b\u200b\u200d',
        ] as const
      ).map(
        (name): Refusal => [
          `a name holding ${JSON.stringify(name)}`,
          { name, files: SIMPLE_SITE },
          400,
          { project_name: messages.project.nameInvalid },
        ],
      ),
      [
        'a description holding a NUL',
        { name: '项目', description: '第一行\n第二行\u0000', files: SIMPLE_SITE },
        400,
        { description: messages.project.descriptionInvalid },
      ],
      [
        'a description over 500 characters',
        { name: '项目', description: '述'.repeat(501), files: SIMPLE_SITE },
        400,
        { description: '项目描述不能超过500个字符' },
      ],
      ['no files', { name: '项目', files: [] }, 400, { files: '请选择要上传的项目文件' }],
      [
        'an empty file',
        { name: '项目', files: [{ name: 'index.html', content: '' }] },
        400,
        { files: '文件 "index.html" 为空文件' },
      ],
      [
        'a blank file name',
        { name: '项目', files: [{ name: ' ', content: 'x' }] },
        400,
        { files: '有文件没有文件名，请重新选择' },
      ],
      [
        'a server-side script',
        { name: '项目', files: [{ name: 'run.php', content: '<?php echo 1;' }] },
        400,
        { files: '不接受可执行文件、安装程序或服务器端脚本："run.php"' },
      ],
      [
        'a .png that is HTML',
        { name: '项目', files: [{ name: 'a.png', content: '<html>not a png</html>' }] },
        400,
        { files: /文件内容与扩展名不符/ },
      ],
      [
        'a .zip that is not an archive',
        { name: '项目', files: [{ name: 'site.zip', content: 'just text' }] },
        400,
        { files: /压缩包/ },
      ],
      [
        'an unknown upload type',
        { name: '项目', uploadType: 'tar', files: SIMPLE_SITE },
        400,
        { upload_type: '上传类型无效' },
      ],
    ];
    for (const [what, opts, status, errors] of refusals) {
      it(`refuses ${what} with a Chinese message and leaves nothing behind`, async () => {
        const rowsBefore = await projectRowCounts(t);
        const blobsBefore = listTree(blobsDir());
        const res = await uploadProject(t, owner.token, opts);
        expect(res.statusCode).toBe(status);
        const body = res.json();
        expect(body.success).toBe(false);
        for (const [field, message] of Object.entries(errors)) {
          if (typeof message === 'string') expect(body.errors[field]).toBe(message);
          else expect(body.errors[field]).toMatch(message);
        }
        expect(body.message).toBe(Object.values(body.errors)[0]);
        expect(await projectRowCounts(t)).toEqual(rowsBefore);
        expect(listTree(blobsDir())).toEqual(blobsBefore);
        expect(listTree(stagingDir())).toEqual([]);
      });
    }

    it('enforces the configured limits while streaming, with 413 and the spec messages', async () => {
      const settings = t.ctx.services.settings;
      const saved = await settings.get();
      try {
        await settings.update({
          ...saved,
          limits: { ...DEFAULT_LIMITS, maxFilesPerUpload: 2, maxFileBytes: 1000, maxUploadBytes: 1500 },
        });
        const rowsBefore = await projectRowCounts(t);
        const many = await uploadProject(t, owner.token, {
          files: [
            { name: 'a.html', content: 'a' },
            { name: 'b.html', content: 'b' },
            { name: 'c.html', content: 'c' },
          ],
        });
        expect(many.statusCode).toBe(413);
        expect(many.json().errors.files).toBe('文件数量超过限制。最多允许上传 2 个文件');
        const big = await uploadProject(t, owner.token, {
          files: [{ name: 'index.html', content: 'x'.repeat(1001) }],
        });
        expect(big.statusCode).toBe(413);
        expect(big.json().errors.files).toBe('文件大小超过限制。最大允许：1000 B');
        const total = await uploadProject(t, owner.token, {
          files: [
            { name: 'a.html', content: 'a'.repeat(900) },
            { name: 'b.html', content: 'b'.repeat(900) },
          ],
        });
        expect(total.statusCode).toBe(413);
        expect(total.json().errors.files).toMatch(/上传内容总大小超过限制/);
        expect(await projectRowCounts(t)).toEqual(rowsBefore);
        expect(listTree(stagingDir())).toEqual([]);
      } finally {
        await settings.update(saved);
      }
    });

    it('refuses by Content-Length before reading the body', async () => {
      const res = await t.request({
        method: 'POST',
        url: '/api/projects/upload',
        token: owner.token,
        headers: {
          'content-type': 'multipart/form-data; boundary=x',
          'content-length': String(300 * 1024 * 1024),
        },
        payload: '--x--',
      });
      expect(res.statusCode).toBe(413);
      expect(res.json().message).toMatch(/上传内容总大小超过限制/);
    });

    it('calls a malformed multipart body malformed, not an interrupted upload', async () => {
      const post = (headers: Record<string, string>, payload: string) =>
        t.request({ method: 'POST', url: '/api/projects/upload', token: owner.token, headers, payload });
      for (const [headers, payload] of [
        // No boundary at all.
        [{ 'content-type': 'multipart/form-data' }, 'xx'],
        // A whole body that never opens a part, or ends inside one.
        [{ 'content-type': 'multipart/form-data; boundary=b' }, 'garbage'],
        [
          { 'content-type': 'multipart/form-data; boundary=b' },
          '--b\r\nContent-Disposition: form-data; name="project_name"\r\n\r\nx',
        ],
      ] as const) {
        const res = await post({ ...headers }, payload);
        expect(res.statusCode, payload).toBe(400);
        expect(res.json().message, payload).toBe('上传的内容格式无效，请重新上传');
      }
      expect(listTree(stagingDir())).toEqual([]);
    });

    it('refuses a field sent twice, and a field the upload does not take, keeping nothing', async () => {
      const before = (await t.request({ url: '/api/projects/my', token: owner.token })).json().data.pagination
        .total_count;
      const send = async (parts: [string, string][], projectId?: number) => {
        const fd = new FormData();
        for (const [k, v] of parts) fd.append(k, v);
        fd.append('files', new Blob(['<p>两次</p>']), 'index.html');
        const res = new Response(fd);
        return t.request({
          method: projectId === undefined ? 'POST' : 'PUT',
          url: projectId === undefined ? '/api/projects/upload' : `/api/projects/${projectId}`,
          token: owner.token,
          payload: Buffer.from(await res.arrayBuffer()),
          headers: { 'content-type': res.headers.get('content-type')! },
        });
      };
      let body = expectFailure(
        await send([
          ['project_name', '第一个名字'],
          ['project_name', '第二个名字'],
        ]),
        400,
        '字段 project_name 只能提供一次',
      );
      expect(body.errors).toEqual({ project_name: '字段 project_name 只能提供一次' });
      body = expectFailure(
        await send([
          ['project_name', '私密项目'],
          ['is_public', 'false'],
        ]),
        400,
        '不支持的字段：is_public',
      );
      expect(body.errors).toEqual({ is_public: '不支持的字段：is_public' });
      // A new version's fields too.
      const made = await send([['project_name', '一次就好']]);
      expect(made.statusCode).toBe(201);
      const id = made.json().data.project.id as number;
      expectFailure(
        await send(
          [
            ['upload_type', 'zip'],
            ['upload_type', 'files'],
          ],
          id,
        ),
        400,
        '字段 upload_type 只能提供一次',
      );
      expectFailure(await send([['is_public', 'false']], id), 400, '不支持的字段：is_public');
      expect(
        (await t.request({ url: '/api/projects/my', token: owner.token })).json().data.pagination.total_count,
      ).toBe(before + 1);
      expect(listTree(stagingDir())).toEqual([]);
    });

    it('says which part is wrong: a file under another name, a file without a name, too many fields', async () => {
      // Each was only 请求参数无效 (or 不支持的字段：files) before session 64's fuzzing.
      const send = async (build: (fd: FormData) => void) => {
        const fd = new FormData();
        fd.append('project_name', '格式');
        build(fd);
        const res = new Response(fd);
        return t.request({
          method: 'POST',
          url: '/api/projects/upload',
          token: owner.token,
          payload: Buffer.from(await res.arrayBuffer()),
          headers: { 'content-type': res.headers.get('content-type')! },
        });
      };
      let body = expectFailure(
        await send((fd) => fd.append('file', new Blob(['<p>x</p>']), 'index.html')),
        400,
        '不支持的字段：file',
      );
      expect(body.errors).toEqual({ file: '不支持的字段：file' });
      body = expectFailure(
        await send((fd) => fd.append('files', '<p>没有文件名</p>')),
        400,
        messages.project.fileNameBlank,
      );
      expect(body.errors).toEqual({ files: messages.project.fileNameBlank });
      expectFailure(
        await send((fd) => {
          for (let i = 0; i < 21; i++) fd.append(`f${i}`, 'x');
          fd.append('files', new Blob(['<p>x</p>']), 'index.html');
        }),
        400,
        '表单字段过多：最多 20 个',
      );
      expect(listTree(stagingDir())).toEqual([]);
    });

    it('refuses a JSON body on the upload call', async () => {
      const res = await t.request({
        method: 'POST',
        url: '/api/projects/upload',
        token: owner.token,
        body: { project_name: 'x' },
      });
      expect(res.statusCode).toBe(415);
      expect(res.json().success).toBe(false);
    });
  });

  describe('an upload that outlives its project or account', () => {
    /**
     * Sends an upload over a socket in two halves and runs `meanwhile` between them, so the
     * server has accepted the request (and checked who sent it) before the deletion happens.
     */
    async function racingUpload(
      method: string,
      url: string,
      token: string,
      fields: Record<string, string>,
      meanwhile: () => Promise<void>,
    ) {
      const { payload, headers } = await multipart(fields, [
        { name: 'index.html', content: '<!doctype html><title>新版本</title>' },
        { name: 'notes.txt', content: Buffer.alloc(3 << 20, 0x61) },
      ]);
      const port = await listenPort(t);
      const socket = net.connect(port, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      const chunks: Buffer[] = [];
      socket.on('data', (c: Buffer) => chunks.push(c));
      const ended = new Promise((resolve) => socket.once('close', resolve));
      const half = payload.length >> 1;
      socket.write(
        `${method} ${url} HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${token}\r\n` +
          `content-type: ${headers['content-type']}\r\ncontent-length: ${payload.length}\r\nconnection: close\r\n\r\n`,
      );
      socket.write(payload.subarray(0, half));
      // Admitted and staging: the first half holds the whole page and the start of notes.txt.
      await expect.poll(() => listTree(stagingDir()).some((f) => f.endsWith('/in/1'))).toBe(true);
      await meanwhile();
      socket.write(payload.subarray(half));
      await ended;
      const text = Buffer.concat(chunks).toString();
      return {
        status: Number(text.split(' ')[1]),
        body: JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4)),
      };
    }
    const blobs = () => listTree(blobsDir()).filter((f) => /[0-9a-f]{64}$/.test(f));

    it('answers 404 for a new version of a project deleted meanwhile, and keeps none of its files', async () => {
      const user = await t.createUser();
      const created = await uploadProject(t, user.token, { name: '将被删除', files: SIMPLE_SITE });
      const id = created.json().data.project.id as number;
      const before = blobs();
      const rowsBefore = await projectRowCounts(t);
      const res = await racingUpload('PUT', `/api/projects/${id}`, user.token, {}, async () => {
        const del = await t.request({ method: 'DELETE', url: `/api/projects/${id}`, token: user.token });
        expect(del.statusCode).toBe(200);
      });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ success: false, message: '项目不存在' });
      // The deleted project's own files went with it; the new version's were never kept.
      expect(blobs().filter((b) => !before.includes(b))).toEqual([]);
      expect(listTree(stagingDir())).toEqual([]);
      // Only the deleted project's one version and two files are gone: the new version left none.
      expect(await projectRowCounts(t)).toEqual({
        projects: rowsBefore.projects - 1,
        deployments: rowsBefore.deployments - 1,
        files: rowsBefore.files - SIMPLE_SITE.length,
      });
    });

    it('answers 401 for an upload by an account deleted meanwhile, and creates nothing', async () => {
      const user = await t.createUser();
      const before = blobs();
      const rowsBefore = await projectRowCounts(t);
      const res = await racingUpload(
        'POST',
        '/api/projects/upload',
        user.token,
        { project_name: '孤儿项目' },
        async () => {
          const del = await t.request({
            method: 'DELETE',
            url: `/api/admin/users/${user.id}`,
            token: await t.adminToken(),
          });
          expect(del.statusCode).toBe(200);
        },
      );
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ success: false, message: '登录已过期，请重新登录' });
      expect(blobs().filter((b) => !before.includes(b))).toEqual([]);
      expect(listTree(stagingDir())).toEqual([]);
      expect(await projectRowCounts(t)).toEqual(rowsBefore);
    });
  });

  describe('the owner', () => {
    let projectId: number;
    beforeAll(async () => {
      const res = await uploadProject(t, owner.token, {
        name: '详情项目',
        description: '描述',
        files: SIMPLE_SITE,
      });
      projectId = res.json().data.project.id;
    });

    it('sees the project with files, versions and both naming styles; others get 404', async () => {
      const mine = await t.request({ url: `/api/projects/${projectId}`, token: owner.token });
      expect(mine.statusCode).toBe(200);
      const p = mine.json().data.project;
      expect(p).toMatchObject({
        id: projectId,
        project_id: projectId,
        name: '详情项目',
        createdAt: p.created_at,
        viewCount: 0,
        access_count: 0,
        download_count: 0,
      });
      expect(p.deployments).toHaveLength(1);
      expect(p.deployments[0]).toMatchObject({ version: 1, status: 'pending', is_live: false });
      const admin = await t.request({ url: `/api/projects/${projectId}`, token: await t.adminToken() });
      expect(admin.statusCode).toBe(200);
      const stranger = await t.request({ url: `/api/projects/${projectId}`, token: other.token });
      expect(stranger.statusCode).toBe(404);
      expect(stranger.json().message).toBe('项目不存在');
      const missing = await t.request({ url: '/api/projects/99999999', token: owner.token });
      expect(missing.statusCode).toBe(404);
      const bad = await t.request({ url: '/api/projects/abc', token: owner.token });
      expect(bad.statusCode).toBe(404);
    });

    it('lists own projects newest first with status filters and dashboard counters', async () => {
      const res = await t.request({ url: '/api/projects/my', token: owner.token });
      expect(res.statusCode).toBe(200);
      const { projects, pagination, stats } = res.json().data;
      expect(
        projects.every((p: { owner: { username: string } }) => p.owner.username === owner.username),
      ).toBe(true);
      expect(projects[0].id).toBe(projectId);
      expect(stats).toEqual({
        total: pagination.total_count,
        pending: pagination.total_count,
        reviewed: 0,
        published: 0,
        taken_down: 0,
      });
      const rejected = await t.request({ url: '/api/projects/my?status=rejected', token: owner.token });
      expect(rejected.json().data.projects).toEqual([]);
      const bad = await t.request({ url: '/api/projects/my?status=nope', token: owner.token });
      expect(bad.statusCode).toBe(400);
      const paged = await t.request({ url: '/api/projects/my?page_size=1&page=2', token: owner.token });
      expect(paged.json().data.projects).toHaveLength(1);
      expect(paged.json().data.pagination).toMatchObject({ current_page: 2, page_size: 1 });
    });

    it('edits name, description and visibility; others cannot', async () => {
      const res = await t.request({
        method: 'PUT',
        url: `/api/projects/${projectId}`,
        token: owner.token,
        body: { name: '新名字', description: '新描述', is_public: false },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json().data.project).toMatchObject({
        name: '新名字',
        description: '新描述',
        is_public: false,
      });
      const invalid = await t.request({
        method: 'PUT',
        url: `/api/projects/${projectId}`,
        token: owner.token,
        body: { name: 'x' },
      });
      expect(invalid.statusCode).toBe(400);
      expect(invalid.json().errors.name).toBe('项目名称至少需要2个字符');
      // PostgreSQL can't store a NUL: refused as a field error on both databases, never a 500.
      const nul = await t.request({
        method: 'PUT',
        url: `/api/projects/${projectId}`,
        token: owner.token,
        body: { name: '新\u0000名字', description: '多行\r\n描述\t可以' },
      });
      expectFailure(nul, 400);
      expect(nul.json().errors).toEqual({ name: messages.project.nameInvalid });
      const lines = await t.request({
        method: 'PUT',
        url: `/api/projects/${projectId}`,
        token: owner.token,
        body: { description: '多行\n描述\t可以' },
      });
      expect(lines.statusCode).toBe(200);
      expect(lines.json().data.project.description).toBe('多行\n描述\t可以');
      const stranger = await t.request({
        method: 'PUT',
        url: `/api/projects/${projectId}`,
        token: other.token,
        body: { name: '偷改' },
      });
      expect(stranger.statusCode).toBe(404);
    });

    it('uploads a new version: pending, the older pending version superseded', async () => {
      const res = await uploadProject(t, owner.token, {
        projectId,
        files: [{ name: 'index.html', content: '<h1>v2</h1>' }],
      });
      expect(res.statusCode).toBe(200);
      const p = res.json().data.project;
      expect(p.status).toBe('pending');
      expect(p.latest_version).toBe(2);
      expect(p.deployments.map((d: { version: number; status: string }) => [d.version, d.status])).toEqual([
        [2, 'pending'],
        [1, 'superseded'],
      ]);
      expect(p.files.map((f: { file_name: string }) => f.file_name)).toEqual(['index.html']);
      const stranger = await uploadProject(t, other.token, { projectId, files: SIMPLE_SITE });
      expect(stranger.statusCode).toBe(404);
    });

    it('downloads the project as a zip and counts it', async () => {
      const res = await t.request({ url: `/api/projects/${projectId}/download`, token: owner.token });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/zip');
      expect(res.headers['content-disposition']).toBe(`attachment; filename="project-${projectId}.zip"`);
      expect(await unzip(res.rawPayload)).toEqual({ 'index.html': '<h1>v2</h1>' });
      const p = (await t.request({ url: `/api/projects/${projectId}`, token: owner.token })).json().data
        .project;
      expect(p.download_count).toBe(1);
      const stranger = await t.request({ url: `/api/projects/${projectId}/download`, token: other.token });
      expect(stranger.statusCode).toBe(404);
    });

    it('deletes the project and the blobs nothing else uses', async () => {
      const shared = '<p>kept because another project uses it</p>';
      const a = (
        await uploadProject(t, owner.token, {
          name: '删除甲',
          files: [
            { name: 'index.html', content: shared },
            { name: 'only.txt', content: `only ${Date.now()}` },
          ],
        })
      ).json().data.project;
      await uploadProject(t, owner.token, {
        name: '删除乙',
        files: [{ name: 'index.html', content: shared }],
      });
      const blobsBefore = listTree(blobsDir()).filter((f) => /[0-9a-f]{64}$/.test(f)).length;
      const stranger = await t.request({
        method: 'DELETE',
        url: `/api/projects/${a.id}`,
        token: other.token,
      });
      expect(stranger.statusCode).toBe(404);
      const res = await t.request({ method: 'DELETE', url: `/api/projects/${a.id}`, token: owner.token });
      expect(res.statusCode).toBe(200);
      expect((await t.request({ url: `/api/projects/${a.id}`, token: owner.token })).statusCode).toBe(404);
      const blobsAfter = listTree(blobsDir()).filter((f) => /[0-9a-f]{64}$/.test(f)).length;
      expect(blobsBefore - blobsAfter).toBe(1);
    });
  });

  it('publishes the limits the web app checks', async () => {
    const res = await t.request({ url: '/api/config/public' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      limits: {
        max_files_per_upload: 20,
        max_file_bytes: 100 * 1024 * 1024,
        max_upload_bytes: 200 * 1024 * 1024,
      },
      preview_ttl_seconds: 1800,
    });
    expect(res.json().data.allowed_extensions).toEqual(
      expect.arrayContaining(['zip', 'rar', '7z', 'html', 'woff2']),
    );
  });

  it('leaves no staging folder behind after all of the above', () => {
    expect(fs.existsSync(stagingDir()) ? fs.readdirSync(stagingDir()) : []).toEqual([]);
  });
});
