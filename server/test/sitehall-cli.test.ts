/**
 * The `sitehall` command (packages/cli) against a real server on a real port, run from its sources
 * in a process of its own, as CI runs it (no TTY: plain progress lines). The first deploy sends
 * every file, the second only the changed one, the third (unchanged) creates nothing and says so;
 * a folder remembers its project (sitehall link); failures exit non-zero with the server's Chinese
 * message, and a bad token names the fix.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ContentCheckReport, messages } from '@sitehall/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reasonOf } from '../../packages/cli/src/api.js';
import { baseFile, readBase } from '../../packages/cli/src/base.js';
import { hashFiles, listFiles } from '../../packages/cli/src/files.js';
import { fileSystemProblem } from '../../packages/cli/src/fs-errors.js';
import { mergeRuntime } from '../src/content-check/runtime.js';
import { listenSitesPort } from '../src/lifecycle.js';
import { emptyObservations } from '../src/render/render-page.js';
import { createTestApp, freePort, listenPort, review, type TestApp, tempDir } from './helpers.js';
import { forwardRequest } from './support/forward.js';
import { sitehall, spawnSitehall } from './support/sitehall-cli.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
let t: TestApp;
let url: string;
beforeAll(async () => {
  t = await createTestApp();
  url = `http://127.0.0.1:${await listenPort(t)}`;
});
afterAll(() => t.close());

async function apiToken(session: string): Promise<string> {
  const res = await t.request({
    method: 'POST',
    url: '/api/auth/tokens',
    token: session,
    body: { name: 'cli' },
  });
  return res.json().data.token as string;
}

/** The paths of a project's newest version, sorted. */
async function newestVersionPaths(projectId: number): Promise<string[]> {
  const project = await t.ctx.db
    .selectFrom('projects')
    .select('latest_deployment_id')
    .where('id', '=', projectId)
    .executeTakeFirstOrThrow();
  const rows = await t.ctx.db
    .selectFrom('deployment_files')
    .select('path')
    .where('deployment_id', '=', project.latest_deployment_id!)
    .execute();
  return rows.map((r) => r.path).sort();
}

describe('sitehall deploy', () => {
  it('uploads everything, then only the changed file, then nothing', async () => {
    const user = await t.createUser();
    const env = { SITEHALL_URL: url, SITEHALL_TOKEN: await apiToken(user.token) };
    const site = tempDir('sitehall-site-');
    const unique = `${Date.now()}-${Math.random()}`;
    fs.mkdirSync(path.join(site, 'css'));
    fs.mkdirSync(path.join(site, '.git'));
    fs.writeFileSync(
      path.join(site, 'index.html'),
      `<!doctype html><html><head><link rel="stylesheet" href="css/a.css"></head><body>${unique}</body></html>`,
    );
    fs.writeFileSync(path.join(site, 'css/a.css'), `body { content: "${unique}"; }`);
    fs.writeFileSync(path.join(site, 'about.html'), `<!doctype html><p>关于 ${unique}</p>`);
    fs.writeFileSync(path.join(site, '.git/HEAD'), 'ref: refs/heads/main');

    const first = await sitehall(['deploy', site, '--name', '命令行站点'], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain('共 3 个文件，需要上传 3 个');
    expect(first.stderr).toMatch(/上传文件 3\/3 \(100%\)/);
    expect(first.stdout).toContain('审核状态：待审核');
    const id = Number(/项目 (\d+)/.exec(first.stdout)?.[1]);
    expect(first.stdout).toMatch(new RegExp(`预览链接：${url}/preview/\\S+`));
    const preview = /预览链接：(\S+)/.exec(first.stdout)![1]!;
    expect((await fetch(preview)).status).toBe(200);

    fs.writeFileSync(path.join(site, 'about.html'), `<!doctype html><p>关于我们 ${unique}</p>`);
    const second = await sitehall(['deploy', site, '--project', String(id)], env);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain('共 3 个文件，需要上传 1 个');
    expect(second.stdout).toContain('第 2 版');

    // Nothing changed: no new version waits for review, and the command says so.
    const third = await sitehall(['deploy', site, '--project', String(id)], env);
    expect(third.code, third.stderr).toBe(0);
    expect(third.stdout).toContain('没有改动：3 个文件与项目');
    expect(third.stdout).toContain('第 2 版完全相同，未创建新版本');
    const versions = await t.ctx.db
      .selectFrom('deployments')
      .select('id')
      .where('project_id', '=', id)
      .execute();
    expect(versions).toHaveLength(2);
    const unchangedJson = await sitehall(['deploy', site, '--project', String(id), '--json'], env);
    expect(JSON.parse(unchangedJson.stdout)).toMatchObject({ project_id: id, version: 2, unchanged: true });

    // A file removed is a change, though every remaining file is the same.
    fs.rmSync(path.join(site, 'about.html'));
    const fewer = await sitehall(['deploy', site, '--project', String(id)], env);
    expect(fewer.code, fewer.stderr).toBe(0);
    expect(fewer.stderr).toContain('共 2 个文件，需要上传 0 个');
    expect(fewer.stdout).toContain('第 3 版');

    const list = await sitehall(['projects'], env);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`${id}\\s+待审核\\s+命令行站点`));
    // The server's words for each state: every live site 已发布, the featured one 精选, a takedown 已下线.
    for (const [action, label] of [
      ['approve', '已发布'],
      ['publish', '精选'],
      ['takedown', '已下线'],
    ] as const) {
      expect((await review(t, id, action, '原因')).statusCode).toBe(200);
      const now = await sitehall(['projects'], env);
      expect(now.stdout).toMatch(new RegExp(`${id}\\s+${label}\\s+命令行站点`));
    }
  });

  it('leaves hidden files such as .env home unless asked, and says which; .well-known goes', async () => {
    const user = await t.createUser();
    const env = { SITEHALL_URL: url, SITEHALL_TOKEN: await apiToken(user.token) };
    const site = tempDir('sitehall-hidden-');
    const files: [string, string][] = [
      ['index.html', '<!doctype html><title>站点</title><p>你好</p>'],
      ['.env', 'SECRET_KEY=do-not-publish'],
      ['.aws/credentials', '[default]\naws_secret_access_key=x'],
      ['sub/.npmrc', '//registry.npmjs.org/:_authToken=x'],
      ['sub/page.html', '<!doctype html><p>子页</p>'],
      ['.well-known/security.txt', 'Contact: mailto:a@example.com'],
    ];
    for (const [name, text] of files) {
      fs.mkdirSync(path.dirname(path.join(site, name)), { recursive: true });
      fs.writeFileSync(path.join(site, name), text);
    }

    const first = await sitehall(['deploy', site, '--name', '隐藏文件'], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toContain(
      '已跳过隐藏文件：.aws/、.env、sub/.npmrc（可能含密钥；确需部署请加 --include-hidden）',
    );
    expect(first.stderr).toContain('共 3 个文件');
    const id = Number(/项目 (\d+)/.exec(first.stdout)?.[1]);
    expect(await newestVersionPaths(id)).toEqual(['.well-known/security.txt', 'index.html', 'sub/page.html']);

    const asked = await sitehall(['deploy', site, '--project', String(id), '--include-hidden'], env);
    expect(asked.code, asked.stderr).toBe(0);
    expect(asked.stderr).not.toContain('已跳过隐藏文件');
    expect(await newestVersionPaths(id)).toEqual([
      '.aws/credentials',
      '.env',
      '.well-known/security.txt',
      'index.html',
      'sub/.npmrc',
      'sub/page.html',
    ]);
  });

  it('never sends a symbolic link, and says which it left out: a link may point out of the folder', async () => {
    const user = await t.createUser();
    const env = { SITEHALL_URL: url, SITEHALL_TOKEN: await apiToken(user.token) };
    const outside = tempDir('sitehall-outside-');
    fs.writeFileSync(path.join(outside, 'id_rsa'), 'PRIVATE KEY');
    const site = tempDir('sitehall-links-');
    fs.mkdirSync(path.join(site, 'assets'));
    fs.writeFileSync(path.join(site, 'index.html'), '<!doctype html><title>链接</title><p>你好</p>');
    fs.writeFileSync(path.join(site, 'assets', 'logo.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
    fs.symlinkSync(path.join(outside, 'id_rsa'), path.join(site, 'key.txt'));
    fs.symlinkSync('assets', path.join(site, 'static'));
    fs.symlinkSync('logo.svg', path.join(site, 'assets', 'favicon.svg'));
    fs.symlinkSync('nowhere.css', path.join(site, 'dangling.css'));
    const run = await sitehall(['deploy', site, '--name', '链接站点'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      '已跳过符号链接：assets/favicon.svg、dangling.css、key.txt、static/（只部署普通文件；需要的话请把链接换成实际文件）',
    );
    const id = Number(/项目 (\d+)/.exec(run.stdout)?.[1]);
    expect(await newestVersionPaths(id)).toEqual(['assets/logo.svg', 'index.html']);
  });

  it('keeps a hash cache that skips unchanged files and still sees every change', async () => {
    const user = await t.createUser();
    const cacheHome = tempDir('sitehall-cache-');
    const env = {
      SITEHALL_URL: url,
      SITEHALL_TOKEN: await apiToken(user.token),
      XDG_CACHE_HOME: cacheHome,
    };
    const site = tempDir('sitehall-site-');
    const unique = `${Date.now()}-${Math.random()}`;
    const write = (name: string, body: string, mtime?: Date) => {
      fs.writeFileSync(path.join(site, name), body);
      if (mtime) fs.utimesSync(path.join(site, name), mtime, mtime);
    };
    const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000);
    write('index.html', `<!doctype html><p>首页 ${unique}</p>`, minutesAgo(10));
    write('a.html', `<!doctype html><p>AAAA ${unique}</p>`, minutesAgo(10));
    // Stamps around a moment M whole seconds ten seconds ago; the cache's write time is then set to
    // M + 1.5 s, so which entries are racy does not depend on how long a deploy takes.
    const M = Math.floor(Date.now() / 1000) * 1000 - 10_000;
    // A stamp in whole seconds (a file system that keeps seconds) within 2 s of the write: racy.
    write('b.html', `<!doctype html><p>BBBB ${unique}</p>`, new Date(M));
    // A fine stamp (ext4's) 0.49 s before the write: past the clock's tick, trusted.
    write('c.html', `<!doctype html><p>CCCC ${unique}</p>`, new Date(M + 1007));
    // A fine stamp within 100 ms of the write: racy.
    write('d.html', `<!doctype html><p>DDDD ${unique}</p>`, new Date(M + 1450));

    const first = await sitehall(['deploy', site, '--name', '缓存站点'], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).not.toContain('哈希缓存');
    const id = Number(/项目 (\d+)/.exec(first.stdout)?.[1]);
    // The hash cache, and beside it the deployed version's record (packages/cli/src/base.ts).
    const cacheFiles = fs.readdirSync(path.join(cacheHome, 'sitehall')).filter((f) => !f.endsWith('.base'));
    expect(cacheFiles).toHaveLength(1);
    const cachePath = path.join(cacheHome, 'sitehall', cacheFiles[0]!);
    // A header line, then a line per file: path, size, mtime, inode, ctime, SHA-256 and when it was
    // written.
    const [header, ...lines] = fs.readFileSync(cachePath, 'utf8').split('\n');
    const entries = lines.filter(Boolean).map((line) => line.split('\0'));
    expect(entries.map((e) => e[0]).sort()).toEqual(['a.html', 'b.html', 'c.html', 'd.html', 'index.html']);
    for (const e of entries) expect(Number(e[6])).toBeGreaterThan(M + 10_000);
    fs.writeFileSync(
      cachePath,
      `${header}\n${entries.map((e) => `${[...e.slice(0, 6), M + 1500].join('\0')}\n`).join('')}`,
    );

    // Same size, new contents, the same mtime as before (a clock too coarse to tell): the racy
    // entry is hashed again, so the change is seen.
    const bMtime = fs.statSync(path.join(site, 'b.html')).mtime;
    write('b.html', `<!doctype html><p>bbbb ${unique}</p>`, bMtime);
    // Same size, new contents, a different (older) mtime: the stamp differs, so it is hashed again.
    write('a.html', `<!doctype html><p>aaaa ${unique}</p>`, minutesAgo(5));
    const second = await sitehall(['deploy', site, '--project', String(id)], env);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain('哈希缓存：2 个文件未改动，计算 3 个');
    expect(second.stderr).toContain('共 5 个文件，需要上传 2 个');
    // The three files hashed again are written down after the others (a later line wins).
    const appended = fs.readFileSync(cachePath, 'utf8').split('\n').filter(Boolean).slice(6);
    expect(appended.map((line) => line.split('\0')[0]).sort()).toEqual(['a.html', 'b.html', 'd.html']);

    // Everything now older than the cache: nothing is read again, nothing sent.
    fs.utimesSync(path.join(site, 'b.html'), minutesAgo(4), minutesAgo(4));
    expect((await sitehall(['deploy', site, '--project', String(id)], env)).code).toBe(0);
    const third = await sitehall(['deploy', site, '--project', String(id)], env);
    expect(third.code, third.stderr).toBe(0);
    expect(third.stderr).toContain('哈希缓存：5 个文件未改动，计算 0 个');
    expect(third.stdout).toContain('没有改动：5 个文件');
    // Written in place with the same size and its old mtime set back (a build that pins mtimes,
    // `cp -p`): the inode's change time gives it away, so the change is seen and sent.
    const cStat = fs.statSync(path.join(site, 'c.html'));
    write('c.html', `<!doctype html><p>cccc ${unique}</p>`, cStat.mtime);
    expect(fs.statSync(path.join(site, 'c.html')).mtimeMs).toBe(cStat.mtimeMs);
    const pinned = await sitehall(['deploy', site, '--project', String(id)], env);
    expect(pinned.code, pinned.stderr).toBe(0);
    expect(pinned.stderr).toContain('哈希缓存：4 个文件未改动，计算 1 个');
    expect(pinned.stderr).toContain('需要上传 1 个');

    // A corrupt cache is ignored (every file hashed); --no-cache skips the cache.
    fs.writeFileSync(cachePath, '{"version":1,"written":');
    const corrupt = await sitehall(['deploy', site, '--project', String(id)], env);
    expect(corrupt.code, corrupt.stderr).toBe(0);
    expect(corrupt.stderr).not.toContain('哈希缓存');
    expect(corrupt.stdout).toContain('没有改动：5 个文件');
    const noCache = await sitehall(['deploy', site, '--project', String(id), '--no-cache'], env);
    expect(noCache.code, noCache.stderr).toBe(0);
    expect(noCache.stderr).not.toContain('哈希缓存');
    expect(noCache.stderr).toContain('计算哈希 5/5');
  });

  it('sends only the changes against the version it deployed, and the whole manifest when its record is wrong', async () => {
    const user = await t.createUser();
    // A proxy that keeps the body of each start (POST /api/deploys) on its way to the server.
    const starts: Record<string, unknown>[] = [];
    const target = new URL(url);
    const proxy = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        if (req.method === 'POST' && req.url === '/api/deploys') starts.push(JSON.parse(body.toString()));
        forwardRequest(target, req, res, body);
      });
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const cacheHome = tempDir('sitehall-cache-');
      const env = {
        SITEHALL_URL: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
        SITEHALL_TOKEN: await apiToken(user.token),
        XDG_CACHE_HOME: cacheHome,
      };
      const site = tempDir('sitehall-site-');
      const unique = `${Date.now()}-${Math.random()}`;
      const write = (name: string, body: string) => fs.writeFileSync(path.join(site, name), body);
      write('index.html', `<!doctype html><p>首页 ${unique}</p>`);
      write('a.html', `<!doctype html><p>A ${unique}</p>`);
      write('old.html', `<!doctype html><p>旧 ${unique}</p>`);
      const sha = (name: string) =>
        createHash('sha256')
          .update(fs.readFileSync(path.join(site, name)))
          .digest('hex');
      const versionFiles = async (projectId: number, version: number) => {
        const rows = await t.ctx.db
          .selectFrom('deployment_files')
          .innerJoin('deployments', 'deployments.id', 'deployment_files.deployment_id')
          .select(['deployment_files.path', 'deployment_files.sha256'])
          .where('deployments.project_id', '=', projectId)
          .where('deployments.version', '=', version)
          .execute();
        return Object.fromEntries(rows.map((r) => [r.path, r.sha256]));
      };
      const folder = () => Object.fromEntries(fs.readdirSync(site).map((f) => [f, sha(f)]));

      const first = await sitehall(['deploy', site, '--name', '基准命令行'], env);
      expect(first.code, first.stderr).toBe(0);
      const id = Number(/项目 (\d+)/.exec(first.stdout)?.[1]);
      expect(starts.at(-1)).toHaveProperty('files');

      // One file changed, one added, one removed: the second deploy names version 1 and sends those.
      write('a.html', `<!doctype html><p>AA ${unique}</p>`);
      write('b.html', `<!doctype html><p>B ${unique}</p>`);
      fs.rmSync(path.join(site, 'old.html'));
      const second = await sitehall(['deploy', site, '--project', String(id)], env);
      expect(second.code, second.stderr).toBe(0);
      expect(second.stderr).toContain('共 3 个文件，需要上传 2 个');
      expect(second.stdout).toContain('第 2 版');
      expect(starts).toHaveLength(2);
      expect(starts[1]).not.toHaveProperty('files');
      expect(starts[1]).toMatchObject({
        project_id: id,
        base_version: 1,
        changes: { 'a.html': sha('a.html'), 'b.html': sha('b.html'), 'old.html': null },
      });
      expect(Object.keys(starts[1]!.changes as object)).toHaveLength(3);
      expect(await versionFiles(id, 2)).toEqual(folder());

      // Unchanged, on the record of version 2: the server says so, with the changes alone.
      const same = await sitehall(['deploy', site, '--project', String(id)], env);
      expect(same.stdout).toContain('第 2 版完全相同');
      expect(starts.at(-1)).toMatchObject({ base_version: 2, changes: {} });

      // A stale record (another manifest under version 2's number): refused by its digest, then
      // the whole manifest in the same run, and the version is the folder.
      const recordFile = path.join(
        cacheHome,
        'sitehall',
        fs.readdirSync(path.join(cacheHome, 'sitehall')).find((f) => f.endsWith('.base'))!,
      );
      // A header line, then the version's manifest in the canonical form its digest is taken of.
      const [header, ...lines] = fs.readFileSync(recordFile, 'utf8').split('\n');
      expect(header).toMatch(/^sitehall-base 2 \{.*"version":2/);
      const a = lines.find((l) => l.startsWith('a.html\0'))!.split('\0')[1];
      const stale = [...lines.filter(Boolean), `old.html\0${a}`].sort();
      fs.writeFileSync(recordFile, `${header}\n${stale.map((l) => `${l}\n`).join('')}`);
      write('a.html', `<!doctype html><p>AAA ${unique}</p>`);
      const count = starts.length;
      const third = await sitehall(['deploy', site, '--project', String(id)], env);
      expect(third.code, third.stderr).toBe(0);
      expect(third.stderr).toContain('共 3 个文件，需要上传 1 个');
      expect(third.stdout).toContain('第 3 版');
      expect(starts.slice(count).map((b) => ('files' in b ? 'files' : b.base_version))).toEqual([2, 'files']);
      expect(await versionFiles(id, 3)).toEqual(folder());

      // A corrupt record is ignored: the whole manifest at once.
      fs.writeFileSync(recordFile, '{"format":1,"url":');
      write('b.html', `<!doctype html><p>BB ${unique}</p>`);
      const corrupt = await sitehall(['deploy', site, '--project', String(id)], env);
      expect(corrupt.code, corrupt.stderr).toBe(0);
      expect(corrupt.stdout).toContain('第 4 版');
      expect(starts.at(-1)).toHaveProperty('files');
      expect(await versionFiles(id, 4)).toEqual(folder());
      // ...and written again: the next deploy builds on version 4; --no-cache sends the whole manifest.
      write('index.html', `<!doctype html><p>首页 v5 ${unique}</p>`);
      const fifth = await sitehall(['deploy', site, '--project', String(id)], env);
      expect(fifth.stdout).toContain('第 5 版');
      expect(starts.at(-1)).toMatchObject({ base_version: 4, changes: { 'index.html': sha('index.html') } });
      const noCache = await sitehall(['deploy', site, '--project', String(id), '--no-cache'], env);
      expect(noCache.stdout).toContain('第 5 版完全相同');
      expect(starts.at(-1)).toHaveProperty('files');
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it('reads a base record only in its own form: lines of path, NUL, hash and newline, the digest of the text as read', () => {
    const site = tempDir('sitehall-record-site-');
    const env = { XDG_CACHE_HOME: tempDir('sitehall-record-cache-') };
    const record = baseFile(site, env);
    fs.mkdirSync(path.dirname(record), { recursive: true });
    const header = `sitehall-base 2 ${JSON.stringify({ url: 'http://127.0.0.1:1', project_id: 4, version: 2 })}\n`;
    const a = 'a'.repeat(64);
    const b = 'b'.repeat(64);
    const write = (body: string) => fs.writeFileSync(record, header + body);

    const body = `css/site.css\0${a}\nindex.html\0${b}\n`;
    write(body);
    expect(readBase(site, env)).toEqual({
      url: 'http://127.0.0.1:1',
      project_id: 4,
      version: 2,
      files: new Map([
        ['css/site.css', a],
        ['index.html', b],
      ]),
      digest: createHash('sha256').update(body).digest('hex'),
    });
    // An empty manifest is one (a folder whose every file was removed).
    write('');
    expect(readBase(site, env)?.files.size).toBe(0);
    // Anything else is not a record this CLI wrote: the whole manifest is sent instead.
    for (const bad of [
      `index.html\0${b}`, // the last line cut short
      `index.html\0${b.slice(1)}\n`, // a short hash
      `index.html\0${b}x\n`, // a long one
      `\0${b}\n`, // no path
      `index.html ${b}\n`, // no NUL
      `css/site.css\nindex.html\0${b}\n`, // a path across lines
      `index.html\0${b}\n\n`, // an empty line
    ]) {
      write(bad);
      expect(readBase(site, env), JSON.stringify(bad)).toBeUndefined();
    }
    // 64 characters that are not hex are read as they are: the digest is of this text, which the
    // server's base can't have, so the server refuses it (409) and the whole manifest goes.
    const odd = `index.html\0${'z'.repeat(64)}\n`;
    write(odd);
    expect(readBase(site, env)?.digest).toBe(createHash('sha256').update(odd).digest('hex'));
  });

  it('stops a deploy whose file changed after it was hashed, and finishes nothing', async () => {
    const user = await t.createUser();
    const target = new URL(url);
    // A proxy that changes the site's file once the CLI has hashed it: when the start arrives.
    let change: () => void = () => {};
    const proxy = http.createServer((req, res) => {
      if (req.method === 'POST' && req.url === '/api/deploys') change();
      forwardRequest(target, req, res);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const env = {
        SITEHALL_URL: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
        SITEHALL_TOKEN: await apiToken(user.token),
      };
      const site = tempDir('sitehall-site-');
      const page = path.join(site, 'index.html');
      const body = `<!doctype html><p>改动 ${Date.now()} ${Math.random()}</p>`;
      const edits: [string, () => void][] = [
        ['grew', () => fs.appendFileSync(page, '<p>多出来的一段</p>')],
        ['shrank', () => fs.writeFileSync(page, body.slice(0, 20))],
      ];
      for (const [what, edit] of edits) {
        fs.writeFileSync(page, `${body} ${what}`);
        change = edit;
        const run = await sitehall(['deploy', site, '--name', `改动站点-${what}`, '--no-cache'], env);
        expect(run.code, what).not.toBe(0);
        expect(run.stderr, what).toContain(`文件在上传时被改动：${page}`);
      }
      // A large file (read from disk as it is sent, not kept from its hashing) gone by then: the
      // folder's doing, said as such, not "cannot connect to the server" as its read's error was.
      const bundle = path.join(site, 'bundle.js');
      fs.writeFileSync(bundle, `/* ${body} */\n${'x'.repeat(2 * 1024 * 1024)}`);
      change = () => fs.rmSync(bundle);
      const gone = await sitehall(['deploy', site, '--name', '改动站点-gone', '--no-cache'], env);
      expect(gone.code).toBe(1);
      expect(gone.stderr).toContain(
        `错误：文件已不存在：${bundle}（列出文件后它被删除或改名了：请在构建完成后再部署）`,
      );
      expect(gone.stderr).not.toContain('无法连接服务器');
      // A large file changed in place, its size kept: sent whole and refused by the server's hash
      // check, whose words (上传内容与 SHA-256 不符：…) name a hash; the CLI names the file.
      fs.writeFileSync(bundle, `/* ${body} */\n${'x'.repeat(2 * 1024 * 1024)}`);
      change = () => {
        const fd = fs.openSync(bundle, 'r+');
        fs.writeSync(fd, 'y', 3);
        fs.closeSync(fd);
      };
      const edited = await sitehall(['deploy', site, '--name', '改动站点-edited', '--no-cache'], env);
      expect(edited.code).toBe(1);
      expect(edited.stderr).toContain(`文件在上传时被改动：${bundle}（请在构建完成后再部署）`);
      const projects = await t.ctx.db
        .selectFrom('projects')
        .where('owner_id', '=', user.id)
        .select('id')
        .execute();
      expect(projects).toEqual([]);
      // Each failed deploy was cancelled: none stays open to hold the quota or a place among the
      // account's open deploys until it expires.
      const open = await t.ctx.db.selectFrom('deploys').where('user_id', '=', user.id).select('id').execute();
      expect(open).toEqual([]);
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it('hashes every file, small ones in one read (kept for the upload) and large ones in pieces, as each is when read', async () => {
    const site = tempDir('sitehall-hash-');
    const MB = 1024 * 1024;
    const contents: Record<string, Buffer> = {
      'empty.txt': Buffer.alloc(0),
      'index.html': Buffer.from('<!doctype html><p>首页</p>'),
      'exactly-1mb.bin': Buffer.alloc(MB, 7),
      'large.bin': Buffer.alloc(3 * MB + 5, 9),
      'grows.txt': Buffer.from('短'),
      'shrinks.txt': Buffer.from('一段会变短的文字'),
    };
    // More small files than one turn of the event loop takes.
    for (let i = 0; i < 150; i++) contents[`p/f${i}.css`] = Buffer.from(`a{color:#${i}}`);
    for (const [name, bytes] of Object.entries(contents)) {
      fs.mkdirSync(path.dirname(path.join(site, name)), { recursive: true });
      fs.writeFileSync(path.join(site, name), bytes);
    }
    const listed = listFiles(site);
    // Changed after the listing: one grows past a single read of its listed size, one shrinks.
    contents['grows.txt'] = Buffer.alloc(2 * MB, 1);
    contents['shrinks.txt'] = Buffer.from('短');
    fs.writeFileSync(path.join(site, 'grows.txt'), contents['grows.txt']);
    fs.writeFileSync(path.join(site, 'shrinks.txt'), contents['shrinks.txt']);
    const done: number[] = [];
    await hashFiles(
      listed,
      listed.map((_, i) => i),
      (n) => done.push(n),
    );
    const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
    expect(Object.fromEntries(listed.map((f) => [f.path, f.sha256]))).toEqual(
      Object.fromEntries(Object.entries(contents).map(([name, bytes]) => [name, sha256(bytes)])),
    );
    expect(done).toEqual(listed.map((_, i) => i + 1));
    // A small file's bytes are kept for its upload when they are the size listed (announced).
    const kept = (name: string) => listed.find((f) => f.path === name)!.bytes;
    expect(kept('index.html')).toEqual(contents['index.html']);
    expect(kept('exactly-1mb.bin')).toEqual(contents['exactly-1mb.bin']);
    expect(kept('empty.txt')).toEqual(Buffer.alloc(0));
    for (const name of ['large.bin', 'grows.txt', 'shrinks.txt']) expect(kept(name), name).toBeUndefined();
    // Only the files asked for.
    const again = listFiles(site);
    await hashFiles(again, [0]);
    expect(again.filter((f) => f.sha256 !== '').map((f) => f.path)).toEqual([again[0]!.path]);
    // A file gone since the listing fails the hashing, as a read of it fails.
    const gone = listFiles(site);
    fs.rmSync(path.join(site, 'index.html'));
    const goneError = await hashFiles(
      gone,
      gone.map((_, i) => i),
    ).catch((err: unknown) => err);
    expect(goneError).toMatchObject({ code: 'ENOENT' });
    // Said in Chinese, relative to the working folder (the CLI's 错误： line).
    expect(fileSystemProblem(goneError, path.dirname(site))).toBe(
      `文件已不存在：${path.join(path.basename(site), 'index.html')}（列出文件后它被删除或改名了：请在构建完成后再部署）`,
    );
    expect(fileSystemProblem(goneError, '/elsewhere')).toContain(path.join(site, 'index.html'));
    // A file that became a folder fails its read, not its open: the file is named all the same,
    // small or large.
    for (const name of ['exactly-1mb.bin', 'large.bin']) {
      const replaced = listFiles(site);
      fs.rmSync(path.join(site, name));
      fs.mkdirSync(path.join(site, name));
      const err = await hashFiles(
        replaced,
        replaced.map((_, i) => i),
      ).catch((e: unknown) => e);
      expect(err, name).toMatchObject({ code: 'EISDIR', path: path.join(site, name) });
      expect(fileSystemProblem(err, site)).toBe(
        `应为文件，却是目录：${name}（列出文件后它被替换了：请在构建完成后再部署）`,
      );
      fs.rmdirSync(path.join(site, name));
      fs.writeFileSync(path.join(site, name), contents[name]!);
    }
    expect(fileSystemProblem(new Error('别的错误'))).toBeNull();
  });

  it('sends its finish again with the same Idempotency-Key when the answer is lost: one version', async () => {
    const user = await t.createUser();
    // A proxy that lets the first finish reach the server, then drops its answer.
    const keys: string[] = [];
    const target = new URL(url);
    const proxy = http.createServer((req, res) => {
      const finish = req.method === 'POST' && /\/finish$/.test(req.url ?? '');
      if (finish) keys.push(String(req.headers['idempotency-key']));
      const upstream = http.request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          if (finish && keys.length === 1) {
            answer.resume();
            answer.on('end', () => req.socket.destroy());
            return;
          }
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const env = {
        SITEHALL_URL: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
        SITEHALL_TOKEN: await apiToken(user.token),
      };
      const site = tempDir('sitehall-site-');
      fs.writeFileSync(path.join(site, 'index.html'), `<!doctype html><p>重试 ${Date.now()}</p>`);
      const run = await sitehall(['deploy', site, '--name', '重试站点'], env);
      expect(run.code, run.stderr).toBe(0);
      expect(keys).toHaveLength(2);
      expect(keys[0]).toMatch(/^cli-[0-9a-f-]{36}$/);
      expect(keys[1]).toBe(keys[0]);
      const id = Number(/项目 (\d+)/.exec(run.stdout)?.[1]);
      expect(run.stdout).toContain('第 1 版');
      const versions = await t.ctx.db
        .selectFrom('deployments')
        .where('project_id', '=', id)
        .select('id')
        .execute();
      expect(versions).toHaveLength(1);
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it('sends a first deploy in a few batches, and PUTs each file to a server without batches', async () => {
    const user = await t.createUser();
    const target = new URL(url);
    // A proxy that counts the requests, and in "old" mode answers the start as a server without
    // batches did (no `batch` field).
    const seen: string[] = [];
    // Each batch's framing: an exact length, never chunked (the server holds the bytes once).
    const framing: string[] = [];
    let old = false;
    const proxy = http.createServer((req, res) => {
      if (req.method === 'POST' && /\/files$/.test(req.url ?? '')) {
        framing.push(
          `${req.headers['content-length'] ? 'length' : 'none'} ${req.headers['transfer-encoding'] ?? ''}`,
        );
      }
      seen.push(
        `${req.method} ${(req.url ?? '').replace(/\/[0-9a-f]{64}$/, '/{sha256}').replace(/deploys\/[^/]+/, 'deploys/{id}')}`,
      );
      const start = req.method === 'POST' && req.url === '/api/deploys';
      const upstream = http.request(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          if (!(start && old)) {
            res.writeHead(answer.statusCode ?? 502, answer.headers);
            answer.pipe(res);
            return;
          }
          const chunks: Buffer[] = [];
          answer.on('data', (c: Buffer) => chunks.push(c));
          answer.on('end', () => {
            const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
            delete body.data.batch;
            const text = JSON.stringify(body);
            res.writeHead(answer.statusCode ?? 502, {
              'content-type': 'application/json',
              'content-length': Buffer.byteLength(text),
            });
            res.end(text);
          });
        },
      );
      upstream.on('error', () => res.destroy());
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const env = {
        SITEHALL_URL: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
        SITEHALL_TOKEN: await apiToken(user.token),
      };
      const site = tempDir('sitehall-site-');
      const unique = `${Date.now()}-${Math.random()}`;
      const contents: Record<string, string> = { 'index.html': `<!doctype html><p>批量 ${unique}</p>` };
      for (let i = 0; i < 300; i++) contents[`p${i % 7}/f${i}.css`] = `.f${i} { content: "${unique}"; }`;
      for (const [p, c] of Object.entries(contents)) {
        fs.mkdirSync(path.dirname(path.join(site, p)), { recursive: true });
        fs.writeFileSync(path.join(site, p), c);
      }
      // Two large images (sent in 1 MB reads, each in a batch of its own): every byte arrives.
      const images = ['img/a.png', 'img/b.png'].map((p, i) => {
        const head = Buffer.from([
          0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52,
        ]);
        const bytes = Buffer.concat([head, Buffer.alloc(3 * 1024 * 1024 + 123 * i, `${unique}-${i}`)]);
        fs.mkdirSync(path.join(site, 'img'), { recursive: true });
        fs.writeFileSync(path.join(site, p), bytes);
        return { path: p, sha256: createHash('sha256').update(bytes).digest('hex') };
      });
      const first = await sitehall(['deploy', site, '--name', '批量部署', '--no-cache'], env);
      expect(first.code, first.stderr).toBe(0);
      expect(first.stderr).toContain('共 303 个文件，需要上传 303 个');
      expect(first.stderr).toMatch(/上传文件 303\/303 \(100%\)/);
      expect(framing.length).toBeGreaterThan(0);
      expect(new Set(framing)).toEqual(new Set(['length ']));
      const batches = seen.filter((r) => r === 'POST /api/deploys/{id}/files');
      // A few batches, sent in parallel: a handful of requests for 301 files.
      expect(batches.length).toBeGreaterThanOrEqual(2);
      expect(batches.length).toBeLessThanOrEqual(6);
      expect(seen.filter((r) => r.startsWith('PUT '))).toEqual([]);
      const id = Number(/项目 (\d+)/.exec(first.stdout)?.[1]);
      const stored = await t.ctx.db
        .selectFrom('deployment_files')
        .innerJoin('projects', 'projects.latest_deployment_id', 'deployment_files.deployment_id')
        .select(['deployment_files.path', 'deployment_files.sha256'])
        .where('projects.id', '=', id)
        .execute();
      expect(stored).toHaveLength(303);
      for (const image of images) {
        expect(stored.find((r) => r.path === image.path)?.sha256).toBe(image.sha256);
        const hash = createHash('sha256');
        for await (const chunk of await t.ctx.store.read(image.sha256)) hash.update(chunk as Buffer);
        expect(hash.digest('hex')).toBe(image.sha256);
      }
      for (const row of stored.filter((r) => !r.path.startsWith('img/')).slice(0, 50)) {
        const chunks: Buffer[] = [];
        for await (const chunk of await t.ctx.store.read(row.sha256)) chunks.push(chunk as Buffer);
        expect(Buffer.concat(chunks).toString('utf8')).toBe(contents[row.path]);
      }

      // The same CLI against a server that offers no batches: one PUT per file, as before.
      old = true;
      seen.length = 0;
      fs.writeFileSync(path.join(site, 'p1/f1.css'), `.changed { content: "${unique}"; }`);
      fs.writeFileSync(path.join(site, 'p2/f2.css'), `.changed-too { content: "${unique}"; }`);
      const second = await sitehall(['deploy', site, '--project', String(id), '--no-cache'], env);
      expect(second.code, second.stderr).toBe(0);
      expect(second.stderr).toContain('需要上传 2 个');
      expect(seen.filter((r) => r.startsWith('PUT ') || r.endsWith('/files'))).toEqual([
        'PUT /api/deploys/{id}/files/{sha256}',
        'PUT /api/deploys/{id}/files/{sha256}',
      ]);
      expect(second.stdout).toContain('第 2 版');
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  }, 600_000);

  it('names the files over the server’s file size limit when a transfer is refused for it', async () => {
    const setLimit = async (max_file_bytes: number) => {
      const res = await t.request({
        method: 'PUT',
        url: '/api/admin/config',
        token: await t.adminToken(),
        body: { max_file_bytes },
      });
      expect(res.statusCode).toBe(200);
    };
    const before = (await t.request({ url: '/api/config/public' })).json().data.limits
      .max_file_bytes as number;
    await setLimit(4096);
    try {
      const site = tempDir('sitehall-site-');
      fs.writeFileSync(path.join(site, 'index.html'), '<p>小文件</p>');
      fs.writeFileSync(path.join(site, 'data.json'), JSON.stringify({ rows: 'x'.repeat(6000) }));
      fs.mkdirSync(path.join(site, 'js'));
      fs.writeFileSync(path.join(site, 'js', 'app.js'), `console.log(${JSON.stringify('y'.repeat(9000))});`);
      const user = await t.createUser();
      const env = { SITEHALL_URL: url, SITEHALL_TOKEN: await apiToken(user.token) };
      const run = await sitehall(['deploy', site, '--name', '有大文件'], env);
      expect(run.code).toBe(1);
      // The server's own words, then which files passed the limit (not the small page).
      expect(run.stderr).toContain('文件大小超过限制。最大允许：4 KB；超过的文件：');
      expect(run.stderr).toContain(`${path.join(site, 'data.json')}（5.9 KB）`);
      expect(run.stderr).toContain(`${path.join(site, 'js', 'app.js')}（8.8 KB）`);
      expect(run.stderr).not.toContain('index.html（');
      const open = await t.ctx.db.selectFrom('deploys').where('user_id', '=', user.id).select('id').execute();
      expect(open).toEqual([]);
    } finally {
      await setLimit(before);
    }
  });

  it('exits non-zero with the server’s message', async () => {
    const site = tempDir('sitehall-site-');
    fs.writeFileSync(path.join(site, 'index.html'), '<p>x</p>');
    fs.writeFileSync(path.join(site, 'setup.exe'), 'MZ');
    const user = await t.createUser();
    const env = { SITEHALL_URL: url, SITEHALL_TOKEN: await apiToken(user.token) };
    const refused = await sitehall(['deploy', site, '--name', '带可执行文件'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('错误：');
    expect(refused.stderr).toContain('setup.exe');

    const revoked = await sitehall(['projects'], {
      SITEHALL_URL: url,
      SITEHALL_TOKEN: 'sht_notavalidtokenatallxxxxxxxxxx',
    });
    expect(revoked.code).toBe(1);
    expect(revoked.stderr).toContain(messages.deploy.tokenInvalid);

    const usage = await sitehall(['deploy'], env);
    expect(usage.code).toBe(2);
  });

  it('--site-name names the site; its address carries the name once live, and a taken name is refused', async () => {
    const site = tempDir('sitehall-site-');
    fs.writeFileSync(path.join(site, 'index.html'), '<p>命名站点</p>');
    const user = await t.createUser();
    const env = { SITEHALL_URL: url, SITEHALL_TOKEN: await apiToken(user.token) };
    const first = await sitehall(
      ['deploy', site, '--name', '命名站点', '--site-name', 'cli-named', '--json'],
      env,
    );
    expect(first.code, first.stderr).toBe(0);
    const id = JSON.parse(first.stdout).project_id as number;
    expect((await review(t, id, 'approve')).statusCode).toBe(200);
    const opened = await sitehall(['open', '--project', String(id), '--no-browser'], env);
    expect(opened.code, opened.stderr).toBe(0);
    expect(opened.stdout).toContain(`${url}/sites/cli-named/`);
    // The same files with a new name: no new version, and the name is changed all the same.
    const renamed = await sitehall(
      ['deploy', site, '--project', String(id), '--site-name', 'CLI-Renamed'],
      env,
    );
    expect(renamed.code, renamed.stderr).toBe(0);
    expect(renamed.stdout).toContain('没有改动：1 个文件');
    expect(renamed.stdout).toContain('站点名已设为 cli-renamed');
    const detail = await t.request({ url: `/api/projects/${id}`, token: user.token });
    expect(detail.json().data.project).toMatchObject({ site_name: 'cli-renamed' });
    // --spa: the project's SPA fallback, with or without a new version.
    const spa = await sitehall(['deploy', site, '--project', String(id), '--spa', 'on'], env);
    expect(spa.code, spa.stderr).toBe(0);
    expect(spa.stdout).toContain('单页应用回退已开启');
    const routing = async () =>
      (await t.request({ url: `/api/projects/${id}`, token: user.token })).json().data.project.routing;
    expect(await routing()).toMatchObject({ spa_fallback: true });
    fs.writeFileSync(path.join(site, 'index.html'), '<p>命名站点 v2</p>');
    const off = await sitehall(['deploy', site, '--project', String(id), '--spa', 'off'], env);
    expect(off.code, off.stderr).toBe(0);
    expect(off.stderr).toContain('单页应用回退已关闭');
    expect(await routing()).toMatchObject({ spa_fallback: false });
    const badSpa = await sitehall(['deploy', site, '--project', String(id), '--spa', 'yes'], env);
    expect(badSpa.code).toBe(2);
    expect(badSpa.stderr).toContain('--spa 只能是 on 或 off');
    const other = await t.createUser();
    const taken = await sitehall(['deploy', site, '--name', '抢名字', '--site-name', 'cli-renamed'], {
      SITEHALL_URL: url,
      SITEHALL_TOKEN: await apiToken(other.token),
    });
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain('站点名“cli-renamed”已被使用，请换一个');
  });

  it('refuses a folder whose _redirects has a bad line, naming the line, and leaves nothing behind', async () => {
    const site = tempDir('sitehall-site-');
    const unique = `${Date.now()}-${Math.random()}`;
    const files: Record<string, string> = {
      'index.html': `<!doctype html><p>路由 ${unique}</p>`,
      'new.html': `<!doctype html><p>新页面 ${unique}</p>`,
      _redirects: `# 旧地址 ${unique}\n/old /new.html 301\n/broken\n`,
    };
    for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(site, name), text);
    const user = await t.createUser();
    const env = { SITEHALL_URL: url, SITEHALL_TOKEN: await apiToken(user.token) };
    const refused = await sitehall(['deploy', site, '--name', '规则有误'], env);
    expect(refused.code).toBe(1);
    // The contents were sent; the finish refused them with the line that is wrong.
    expect(refused.stderr).toContain('需要上传 3 个');
    expect(refused.stderr).toContain('错误：_redirects 第 3 行：每条规则至少要有来源路径和目标两项');
    const projects = await t.ctx.db
      .selectFrom('projects')
      .select('id')
      .where('owner_id', '=', user.id)
      .execute();
    expect(projects).toEqual([]);
    const open = await t.ctx.db.selectFrom('deploys').select('id').where('user_id', '=', user.id).execute();
    expect(open).toEqual([]);
    for (const text of Object.values(files)) {
      const sha256 = createHash('sha256').update(text).digest('hex');
      expect(await t.ctx.store.stat(sha256)).toBeNull();
    }
  });

  it('says when the server can’t be reached, or what answered is not the API', async () => {
    const env = { SITEHALL_TOKEN: 'sht_anytokenwilldoherexxxxxxxxxxxx' };
    // A port nothing listens on.
    const nobody = await freePort();
    const refused = await sitehall(['projects'], { ...env, SITEHALL_URL: `http://127.0.0.1:${nobody}` });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`无法连接服务器 http://127.0.0.1:${nobody}：`);
    expect(refused.stderr).toContain('连接被拒绝：这个地址和端口上没有服务在运行（ECONNREFUSED）');

    // A proxy's error page in front of the server.
    const proxy = http.createServer((_req, res) => {
      res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>502 Bad Gateway</h1>');
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = proxy.address() as AddressInfo;
      const page = await sitehall(['projects'], { ...env, SITEHALL_URL: `http://127.0.0.1:${port}` });
      expect(page.code).toBe(1);
      expect(page.stderr).toContain('服务器返回 HTTP 502（/api/projects/my）');
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it('gives up a call the server took and never answered, and says it did not answer; a finish may take longer', async () => {
    const env = { SITEHALL_TOKEN: 'sht_anytokenwilldoherexxxxxxxxxxxx', SITEHALL_ANSWER_WAIT_MS: '300' };
    // Takes the request and never answers (a stalled server): the command used to wait its ten
    // minutes and then say it could not connect.
    const silent = http.createServer(() => undefined);
    // Takes the request and drops the connection.
    const dropper = net.createServer((socket) => socket.once('data', () => socket.resetAndDestroy()));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => dropper.listen(0, '127.0.0.1', resolve));
    try {
      const quiet = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
      const stalled = await sitehall(['projects'], { ...env, SITEHALL_URL: quiet });
      expect(stalled.code).toBe(1);
      expect(stalled.stderr).toContain(
        `服务器 ${quiet} 没有完成回答（GET /api/projects/my）：1 秒内没有收到回答`,
      );
      expect(stalled.stderr).not.toContain('无法连接服务器');
      const reset = `http://127.0.0.1:${(dropper.address() as AddressInfo).port}`;
      const dropped = await sitehall(['projects'], { ...env, SITEHALL_URL: reset });
      expect(dropped.code).toBe(1);
      expect(dropped.stderr).toContain(
        `服务器 ${reset} 没有完成回答（GET /api/projects/my）：连接被对方中断（ECONNRESET）`,
      );
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
      await new Promise((resolve) => dropper.close(resolve));
    }

    // A finish is the server's whole-site work: its answer is awaited past the other calls' wait.
    const user = await t.createUser();
    const target = new URL(url);
    let held = 0;
    const proxy = http.createServer((req, res) => {
      if (req.method === 'POST' && /\/finish$/.test(req.url ?? '')) {
        held += 1;
        setTimeout(() => forwardRequest(target, req, res), 1_000);
        return;
      }
      forwardRequest(target, req, res);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    try {
      const site = tempDir('sitehall-site-');
      fs.writeFileSync(path.join(site, 'index.html'), `<!doctype html><p>慢 ${Date.now()}</p>`);
      const run = await sitehall(['deploy', site, '--name', '慢的完成'], {
        ...env,
        SITEHALL_URL: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
        SITEHALL_TOKEN: await apiToken(user.token),
      });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toContain('第 1 版');
      expect(held).toBe(1);
    } finally {
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it('says in Chinese when what answered is not SiteHall: never a TypeError or [object Object]', async () => {
    // Each answer the probe of session 64 met (another server at the address, a wrong path): the
    // CLI read fields of what was not its data and printed Node's English TypeError.
    const env = { SITEHALL_TOKEN: 'sht_anytokenwilldoherexxxxxxxxxxxx' };
    const answers: Array<[number, string, string]> = [
      [200, 'text/html', '<!doctype html><h1>欢迎</h1>'],
      [200, 'application/json', '{"success":true}'],
      [200, 'application/json', '{"success":true,"data":null}'],
      [200, 'application/json', '[1,2,3]'],
      [404, 'application/json', '{"success":false,"message":{"text":"不是字符串"}}'],
    ];
    let answer = answers[0]!;
    const other = http.createServer((_req, res) => {
      res.writeHead(answer[0], { 'content-type': answer[1] }).end(answer[2]);
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = other.address() as AddressInfo;
      for (answer of answers) {
        for (const args of [['projects'], ['whoami']]) {
          const run = await sitehall(args, { ...env, SITEHALL_URL: `http://127.0.0.1:${port}` });
          expect(run.code, `${answer[2]} ${args}`).toBe(1);
          expect(run.stderr, answer[2]).toContain(
            `http://127.0.0.1:${port} 的回答不是 SiteHall 的接口（HTTP ${answer[0]}，`,
          );
          expect(run.stderr).not.toMatch(/TypeError|Cannot read|Cannot destructure|object Object/);
        }
      }
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });

  it('checks SITEHALL_URL and takes a token with a line end; prints no password of the address', async () => {
    const user = await t.createUser();
    const token = await apiToken(user.token);
    for (const bad of ['localhost:3998', 'http://', 'ftp://example.com']) {
      const run = await sitehall(['projects'], { SITEHALL_URL: bad, SITEHALL_TOKEN: token });
      expect(run.code, bad).toBe(2);
      expect(run.stderr, bad).toContain(`服务器地址无效：${bad}`);
    }
    // A CI secret saved with its newline: it was sent in the header and refused by Node, said as a
    // connection problem in English.
    const withNewline = await sitehall(['whoami'], { SITEHALL_URL: url, SITEHALL_TOKEN: `${token}\n` });
    expect(withNewline.stderr).toBe('');
    expect(withNewline.code).toBe(0);
    expect(withNewline.stdout).toContain(user.username);
    // An address with a user name and password (a proxy's): the links printed leave them out.
    const site = tempDir('sitehall-site-');
    fs.writeFileSync(path.join(site, 'index.html'), `<!doctype html><p>${Date.now()}</p>`);
    const credentialed = url.replace('http://', 'http://someone:secretpw@');
    const deployed = await sitehall(['deploy', site, '--name', `带密码的地址-${Date.now()}`], {
      SITEHALL_URL: credentialed,
      SITEHALL_TOKEN: token,
    });
    expect(deployed.code, deployed.stderr).toBe(0);
    expect(deployed.stdout).toContain(url);
    expect(deployed.stdout + deployed.stderr).not.toContain('secretpw');
  });

  it('cancels its deploy on SIGTERM (a CI job cancelled), as on Ctrl+C: nothing left open', async () => {
    const user = await t.createUser();
    const token = await apiToken(user.token);
    const site = tempDir('sitehall-site-');
    fs.writeFileSync(path.join(site, 'index.html'), `<!doctype html><p>${Date.now()}</p>`);
    fs.writeFileSync(path.join(site, 'big.js'), `/* ${'x'.repeat(200_000)} */`);
    // A proxy that holds every file transfer: the deploy is started, and never finishes on its own.
    const target = new URL(url);
    let transfers = 0;
    const proxy = http.createServer((req, res) => {
      if (/\/api\/deploys\/[^/]+\/files/.test(req.url ?? '')) {
        transfers++;
        req.resume();
        return;
      }
      forwardRequest(target, req, res);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const openDeploys = async () =>
      Number(
        (
          await t.ctx.db
            .selectFrom('deploys')
            .where('user_id', '=', user.id)
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );
    try {
      const { port } = proxy.address() as AddressInfo;
      const child = spawnSitehall(['deploy', site, '--name', `终止-${Date.now()}`], {
        SITEHALL_URL: `http://127.0.0.1:${port}`,
        SITEHALL_TOKEN: token,
      });
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      await expect.poll(() => transfers, { timeout: 60_000 }).toBeGreaterThan(0);
      expect(await openDeploys()).toBe(1);
      child.kill('SIGTERM');
      expect(await exited).toBe(143);
      expect(stderr).toContain('收到终止信号，正在取消部署');
      expect(await openDeploys()).toBe(0);
    } finally {
      proxy.closeAllConnections();
      await new Promise((resolve) => proxy.close(resolve));
    }
  }, 120_000);

  it('gives up opening a connection that never opens, and says so', async () => {
    // A listener that never accepts (its process asleep) and a full queue: the kernel drops the
    // next connection's SYN, as a firewall that drops packets does, and the connect hangs.
    const sleeper = spawn(
      process.execPath,
      [
        '-e',
        `require('node:net').createServer().listen({ port: 0, host: '127.0.0.1', backlog: 1 }, function () {
           process.stdout.write(this.address().port + '\\n');
           Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);
         });`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const fillers: net.Socket[] = [];
    try {
      const port = await new Promise<number>((resolve, reject) => {
        sleeper.stdout.once('data', (d: Buffer) => resolve(Number(String(d).trim())));
        sleeper.once('exit', () => reject(new Error('the listener ended')));
      });
      // A backlog of 1 queues two connections (a backlog of 0 is read as Node's default, 511).
      for (let i = 0; i < 4; i++) {
        const filler = net.connect(port, '127.0.0.1');
        filler.on('error', () => undefined);
        fillers.push(filler);
      }
      const started = Date.now();
      const run = await sitehall(['projects'], {
        SITEHALL_TOKEN: 'sht_anytokenwilldoherexxxxxxxxxxxx',
        SITEHALL_URL: `http://127.0.0.1:${port}`,
      });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(
        `无法连接服务器 http://127.0.0.1:${port}：10 秒内未能建立连接（地址或端口不通，或被防火墙拦下）`,
      );
      // Given up at its own time, not the system's retries (over two minutes) nor the test's.
      expect(Date.now() - started).toBeGreaterThanOrEqual(10_000);
    } finally {
      for (const filler of fillers) filler.destroy();
      sleeper.kill('SIGKILL');
    }
  }, 120_000);

  it('says in Chinese that a request ran out of its time, where Node says only that it was aborted', async () => {
    // A server that never answers, and a request with a short time of its own (the CLI's is ten
    // minutes): the error Node gives is what the CLI words.
    const silent = http.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = silent.address() as AddressInfo;
      const err = await new Promise<Error>((resolve) => {
        const req = http.get(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(50) });
        req.on('error', resolve);
      });
      expect(err.message).not.toMatch(/[\u4e00-\u9fff]/);
      expect(reasonOf(err)).toBe('10 分钟内没有收到回答');
    } finally {
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('says in Chinese what is wrong with its arguments, and shows the usage for --help after a command', async () => {
    const home = { HOME: tempDir('sitehall-home-'), XDG_CONFIG_HOME: tempDir('sitehall-config-') };
    const help = await sitehall(['deploy', '--help'], home);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('用法：');
    for (const [args, said] of [
      [['deploy', 'dist', '--bogus'], '错误：未知选项：--bogus'],
      [['deploy', 'dist', '--project'], '错误：选项 --project 需要一个值'],
      [['login', '--url', '127.0.0.1:4500', '--token', 'sht_x'], '错误：服务器地址无效：127.0.0.1:4500'],
      // Node's "ambiguous" value was said as "takes no value"; 1e3 and 0x1 were projects 1000 and 1.
      [['deploy', 'dist', '--project', '-1'], '错误：选项 --project 的值不能以 - 开头'],
      [['deploy', 'dist', '--project', '1e3'], '错误：--project 应为项目编号'],
      [['link', '--project', '0x1'], '错误：--project 应为项目编号'],
    ] as const) {
      const res = await sitehall([...args], home);
      expect(res.code, args.join(' ')).toBe(2);
      expect(res.stderr).toContain(said);
      expect(res.stderr).not.toMatch(/Unknown option|Invalid URL|argument missing/);
    }
  });

  it('login checks the token and saves it readable by the user only', async () => {
    const user = await t.createUser();
    const config = tempDir('sitehall-config-');
    const token = await apiToken(user.token);
    const res = await sitehall(['login', '--url', url, '--token', token], { XDG_CONFIG_HOME: config });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain(user.username);
    const file = path.join(config, 'sitehall', 'config.json');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ url, token });
    const list = await sitehall(['projects'], { XDG_CONFIG_HOME: config });
    expect(list.code, list.stderr).toBe(0);
    // SITEHALL_URL naming another server does not get the saved token: nothing is sent there.
    const heard: string[] = [];
    const elsewhere = http.createServer((req, res) => {
      heard.push(req.headers.authorization ?? '');
      res.writeHead(401).end();
    });
    await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
    try {
      const other = `http://127.0.0.1:${(elsewhere.address() as AddressInfo).port}`;
      const leak = await sitehall(['projects'], { XDG_CONFIG_HOME: config, SITEHALL_URL: other });
      expect(leak.code).not.toBe(0);
      expect(leak.stderr).toContain('没有服务器地址或令牌');
      expect(heard).toEqual([]);
      // The same server written another way (a trailing slash) still gets it.
      const same = await sitehall(['projects'], { XDG_CONFIG_HOME: config, SITEHALL_URL: `${url}/` });
      expect(same.code, same.stderr).toBe(0);
    } finally {
      elsewhere.close();
    }

    const bad = await sitehall(['login', '--url', url, '--token', 'sht_wrongwrongwrongwrongwrong'], {
      XDG_CONFIG_HOME: tempDir('sitehall-config-'),
    });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(messages.deploy.tokenInvalid);
  });
});

describe('sitehall link', () => {
  it('says when the working folder cannot keep the link, and still succeeds: the version exists', async () => {
    const user = await t.createUser();
    const env = { SITEHALL_URL: url, SITEHALL_TOKEN: await apiToken(user.token) };
    const work = tempDir('sitehall-work-');
    // `.sitehall` taken by a file: the link's folder can't be made (as in a read-only checkout).
    fs.writeFileSync(path.join(work, '.sitehall'), 'not a folder');
    const site = path.join(work, 'dist');
    fs.mkdirSync(site);
    fs.writeFileSync(path.join(site, 'index.html'), `<!doctype html><p>只读 ${Math.random()}</p>`);
    const res = await sitehall(['deploy', 'dist', '--name', '只读目录'], env, work);
    expect(res.code, res.stderr).toBe(0);
    const id = Number(/项目 (\d+)/.exec(res.stdout)?.[1]);
    expect(id).toBeGreaterThan(0);
    expect(res.stderr).toContain(
      `无法在当前文件夹保存项目链接（EEXIST）：以后请用 --project ${id} 部署到这个项目`,
    );
    const mine = await t.request({ method: 'GET', url: '/api/projects/my', token: user.token });
    expect(mine.json().data.projects.map((p: { id: number }) => p.id)).toEqual([id]);
  });

  it('remembers the project a folder deploys to, and never makes one named after the folder', async () => {
    const user = await t.createUser();
    const env = { SITEHALL_URL: url, SITEHALL_TOKEN: await apiToken(user.token) };
    const work = tempDir('sitehall-work-');
    const site = path.join(work, 'dist');
    fs.mkdirSync(site);
    fs.writeFileSync(path.join(site, 'index.html'), `<!doctype html><p>链接 ${Math.random()}</p>`);

    // Neither --project, a link nor --name: refused with the fix, and nothing is made.
    const refused = await sitehall(['deploy', 'dist'], env, work);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('当前文件夹还没有链接到项目');
    expect(refused.stderr).toContain('sitehall link --project ID');
    expect(refused.stderr).toContain('--name 名称');
    const none = await t.request({ method: 'GET', url: '/api/projects/my', token: user.token });
    expect(none.json().data.projects).toEqual([]);

    // The first deploy of a new project links the folder; the next one needs no --project.
    const first = await sitehall(['deploy', 'dist', '--name', '链接站点'], env, work);
    expect(first.code, first.stderr).toBe(0);
    const id = Number(/项目 (\d+)/.exec(first.stdout)?.[1]);
    expect(first.stdout).toContain(`当前文件夹已链接到项目 ${id}`);
    const file = path.join(work, '.sitehall', 'project.json');
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ url, project_id: id, name: '链接站点' });
    fs.writeFileSync(path.join(site, 'index.html'), `<!doctype html><p>第二版 ${Math.random()}</p>`);
    const second = await sitehall(['deploy', 'dist'], env, work);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain(`项目 ${id}「链接站点」第 2 版`);

    // Deploying the working folder itself never sends the link file.
    fs.writeFileSync(path.join(work, 'index.html'), `<!doctype html><p>根目录 ${Math.random()}</p>`);
    fs.rmSync(site, { recursive: true });
    const itself = await sitehall(['deploy', '.'], env, work);
    expect(itself.code, itself.stderr).toBe(0);
    expect(itself.stderr).toContain('共 1 个文件');

    // Another folder is linked to the existing project by `link`; unlink forgets it.
    const other = tempDir('sitehall-work-');
    fs.writeFileSync(path.join(other, 'index.html'), `<!doctype html><p>另一处 ${Math.random()}</p>`);
    const linked = await sitehall(['link', '--project', String(id)], env, other);
    expect(linked.code, linked.stderr).toBe(0);
    expect(linked.stdout).toContain(`当前文件夹已链接到项目 ${id}「链接站点」`);
    const fromOther = await sitehall(['deploy', '.'], env, other);
    expect(fromOther.code, fromOther.stderr).toBe(0);
    expect(fromOther.stdout).toContain(`项目 ${id}「链接站点」第 4 版`);
    expect((await sitehall(['unlink'], env, other)).code).toBe(0);
    expect(fs.existsSync(path.join(other, '.sitehall', 'project.json'))).toBe(false);
    expect((await sitehall(['deploy', '.'], env, other)).code).toBe(2);

    // Someone else's project can't be linked; a link made for another server is not used here.
    const stranger = await t.createUser();
    const foreign = await sitehall(
      ['link', '--project', String(id)],
      { SITEHALL_URL: url, SITEHALL_TOKEN: await apiToken(stranger.token) },
      tempDir('sitehall-work-'),
    );
    expect(foreign.code).toBe(1);
    fs.writeFileSync(file, JSON.stringify({ url: 'https://elsewhere.example', project_id: id, name: 'x' }));
    const elsewhere = await sitehall(['deploy', '.'], env, work);
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toContain('https://elsewhere.example');

    const list = await t.request({ method: 'GET', url: '/api/projects/my', token: user.token });
    expect(list.json().data.projects.map((p: { name: string }) => p.name)).toEqual(['链接站点']);
  });

  it('warns before sending a folder without index.html, and deploys it', async () => {
    const user = await t.createUser();
    const env = { SITEHALL_URL: url, SITEHALL_TOKEN: await apiToken(user.token) };
    const site = tempDir('sitehall-site-');
    fs.mkdirSync(path.join(site, 'docs'));
    fs.writeFileSync(path.join(site, 'docs/index.html'), `<!doctype html><p>子目录 ${Math.random()}</p>`);
    const res = await sitehall(['deploy', site, '--name', '没有首页'], env);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stderr).toContain('警告：目录根部没有 index.html');
    expect(res.stderr.indexOf('警告')).toBeLessThan(res.stderr.indexOf('上传文件'));
    expect(res.stdout).toContain('第 1 版');
  });
});

describe('sitehall for people and CI', () => {
  it('--version, whoami, and --json for deploy, projects and whoami', async () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, 'packages/cli/package.json'), 'utf8'));
    const version = await sitehall(['--version'], {});
    expect(version.code).toBe(0);
    expect(version.stdout.trim()).toBe(`sitehall ${pkg.version}`);

    const user = await t.createUser();
    const env = { SITEHALL_URL: url, SITEHALL_TOKEN: await apiToken(user.token) };
    const who = await sitehall(['whoami'], env);
    expect(who.code, who.stderr).toBe(0);
    expect(who.stdout.trim()).toBe(`${user.username}（${url}）`);
    const whoJson = await sitehall(['whoami', '--json'], env);
    expect(JSON.parse(whoJson.stdout)).toMatchObject({ id: user.id, username: user.username, url });

    const site = tempDir('sitehall-site-');
    fs.writeFileSync(path.join(site, 'index.html'), `<!doctype html><p>JSON ${Math.random()}</p>`);
    const deployed = await sitehall(['deploy', site, '--name', 'CI 站点', '--json'], env);
    expect(deployed.code, deployed.stderr).toBe(0);
    const result = JSON.parse(deployed.stdout);
    expect(result).toMatchObject({ name: 'CI 站点', version: 1, status: 'pending', access_url: null });
    expect(result.preview_url).toMatch(new RegExp(`^${url}/preview/`));
    expect(deployed.stderr).toContain('共 1 个文件');

    const list = await sitehall(['projects', '--json'], env);
    expect(JSON.parse(list.stdout)).toEqual([
      { id: result.project_id, name: 'CI 站点', status: 'pending', latest_version: 1, access_url: null },
    ]);
  });

  it('open prints the address and hands it to the system opener', async () => {
    const user = await t.createUser();
    const env = { SITEHALL_URL: url, SITEHALL_TOKEN: await apiToken(user.token) };
    const work = tempDir('sitehall-work-');
    fs.writeFileSync(path.join(work, 'index.html'), `<!doctype html><p>打开 ${Math.random()}</p>`);
    const deployed = await sitehall(['deploy', '.', '--name', '打开站点'], env, work);
    expect(deployed.code, deployed.stderr).toBe(0);
    const id = Number(/项目 (\d+)/.exec(deployed.stdout)?.[1]);
    const deployPreview = /预览链接：(\S+)/.exec(deployed.stdout)?.[1];
    expect((await fetch(deployPreview!)).status).toBe(200);

    // A stand-in for xdg-open that writes down what it was asked to open.
    const bin = tempDir('sitehall-bin-');
    const opened = path.join(bin, 'opened.txt');
    fs.writeFileSync(path.join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s' "$1" > '${opened}'\n`, {
      mode: 0o755,
    });
    const withOpener = { ...env, PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` };

    // Not yet live: the preview link, opened.
    const pending = await sitehall(['open'], withOpener, work);
    expect(pending.code, pending.stderr).toBe(0);
    const preview = /预览链接（尚未上线）：(\S+)/.exec(pending.stdout)?.[1];
    expect(preview).toMatch(new RegExp(`^${url}/preview/`));
    await expect.poll(() => fs.existsSync(opened) && fs.readFileSync(opened, 'utf8')).toBe(preview);
    expect((await fetch(preview!)).status).toBe(200);
    // One preview link at a time: the deploy's has ended, and the command said so.
    expect(pending.stderr).toContain('之前生成的预览链接已失效');
    expect((await fetch(deployPreview!)).status).toBe(404);

    // Live: its address; --no-browser only prints; --json for scripts.
    await review(t, id, 'approve');
    fs.rmSync(opened);
    const live = await sitehall(['open', '--project', String(id), '--no-browser'], withOpener);
    expect(live.code, live.stderr).toBe(0);
    const address = /线上地址：(\S+)/.exec(live.stdout)?.[1];
    expect(address).toBeTruthy();
    const json = await sitehall(['open', '--json'], withOpener, work);
    expect(JSON.parse(json.stdout)).toMatchObject({ project_id: id, url: address, live: true });
    expect(fs.existsSync(opened)).toBe(false);

    // Without a link or --project: the fix is named.
    const unlinked = await sitehall(['open'], withOpener);
    expect(unlinked.code).toBe(2);
    expect(unlinked.stderr).toContain('sitehall link --project ID');
  });

  it('a bad or revoked token is named as such, with how to make a new one', async () => {
    const user = await t.createUser();
    const created = await t.request({
      method: 'POST',
      url: '/api/auth/tokens',
      token: user.token,
      body: { name: 'revoked' },
    });
    const { id, token } = created.json().data as { id: number; token: string };
    const env = { SITEHALL_URL: url, SITEHALL_TOKEN: token };
    expect((await sitehall(['whoami'], env)).code).toBe(0);
    await t.request({ method: 'DELETE', url: `/api/auth/tokens/${id}`, token: user.token });
    // Revoked, not a token at all (a session's string pasted), or mistyped: one message and the fix.
    for (const bad of [token, 'not-a-token', 'sht_wrongwrongwrongwrongwrong']) {
      const res = await sitehall(['whoami'], { ...env, SITEHALL_TOKEN: bad });
      expect(res.code).toBe(1);
      expect(res.stderr).toContain(messages.deploy.tokenInvalid);
      expect(res.stderr).toContain('个人设置 → API 令牌');
      expect(res.stderr).toContain('sitehall login');
      expect(res.stderr).not.toContain('登录已过期');
    }
  });
});

describe('sitehall and the web app say the same', () => {
  let w: TestApp;
  let base: string;
  let sitesPort: number;
  beforeAll(async () => {
    sitesPort = await freePort();
    w = await createTestApp({ sitesPort });
    // By localhost, as the web app is opened on the default install: each site gets its own host.
    base = `http://localhost:${await listenPort(w)}`;
    await listenSitesPort(w, w.config);
  });
  afterAll(() => w.close());

  const tokenOf = async (session: string) =>
    (
      await w.request({ method: 'POST', url: '/api/auth/tokens', token: session, body: { name: 'cli' } })
    ).json().data.token as string;

  it('prints the site and preview addresses the web app shows, and the problems the check found', async () => {
    const user = await w.createUser();
    // No --wait: the deploy does not wait for the render, and says where its findings will be.
    const env = { SITEHALL_URL: base, SITEHALL_TOKEN: await tokenOf(user.token) };
    // A whole project folder: the site is its build, in dist/.
    const project = tempDir('sitehall-project-');
    fs.mkdirSync(path.join(project, 'dist'));
    fs.writeFileSync(path.join(project, 'dist/index.html'), `<!doctype html><p>构建 ${Math.random()}</p>`);
    fs.writeFileSync(path.join(project, 'README.md'), '# app');
    const deployed = await sitehall(['deploy', project, '--name', '整个项目'], env);
    expect(deployed.code, deployed.stderr).toBe(0);
    expect(deployed.stdout).toContain('发现 1 个可用性问题');
    expect(deployed.stdout).toContain('找到了 dist/index.html：请只上传 dist 文件夹里的内容');
    const id = Number(/项目 (\d+)/.exec(deployed.stdout)?.[1]);
    expect(deployed.stdout).toContain(`修改方法见 ${base}/projects/${id}`);
    expect(deployed.stderr).toContain(
      `页面运行检查（如前端路由）稍后完成，结果见 ${base}/projects/${id}（加 --wait 30 可等待并打印）`,
    );
    // The preview on a host of its own on the sites port, as the web app's preview panel opens it.
    const preview = /预览链接：(\S+)/.exec(deployed.stdout)?.[1];
    expect(preview).toMatch(new RegExp(`^http://pv-[0-9a-f]{32}\\.localhost:${sitesPort}/$`));

    const site = tempDir('sitehall-site-');
    fs.writeFileSync(path.join(site, 'index.html'), `<!doctype html><p>上线 ${Math.random()}</p>`);
    const first = await sitehall(['deploy', site, '--name', '地址一致'], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).not.toContain('可用性问题');
    const live = Number(/项目 (\d+)/.exec(first.stdout)?.[1]);
    expect((await review(w, live, 'approve')).statusCode).toBe(200);
    const address = `http://p${live}.localhost:${sitesPort}/`;
    const opened = await sitehall(['open', '--project', String(live), '--no-browser'], env);
    expect(opened.stdout.trim()).toBe(`线上地址：${address}`);
    const listed = await sitehall(['projects', '--json'], env);
    expect(JSON.parse(listed.stdout)).toContainEqual(
      expect.objectContaining({ id: live, access_url: address }),
    );
  });

  it('prints the render’s client-side router note with the --spa on that fixes it', async () => {
    const user = await w.createUser();
    // Waits for the render as long as the test needs (--wait): it ends when the note is there.
    const env = { SITEHALL_URL: base, SITEHALL_TOKEN: await tokenOf(user.token) };
    const site = tempDir('sitehall-site-');
    const marker = `路由 ${Math.random()}`;
    fs.writeFileSync(path.join(site, 'index.html'), `<!doctype html><div id="app">${marker}</div>`);
    const running = sitehall(['deploy', site, '--name', '前端路由', '--wait', '120'], env);
    // The render's finding, as the render worker stores it (here none runs).
    let row: { id: number; content_check: string | null } | undefined;
    await expect
      .poll(async () => {
        row = await w.ctx.db
          .selectFrom('deployments')
          .innerJoin('projects', 'projects.id', 'deployments.project_id')
          .select(['deployments.id', 'deployments.content_check'])
          .where('projects.owner_id', '=', user.id)
          .executeTakeFirst();
        return row !== undefined;
      })
      .toBe(true);
    const report = JSON.parse(row!.content_check!) as ContentCheckReport;
    const merged = mergeRuntime(
      report,
      { ...emptyObservations(), historyRouting: true },
      false,
      new Date().toISOString(),
    );
    await w.ctx.db
      .updateTable('deployments')
      .set({ content_check: JSON.stringify(merged) })
      .where('id', '=', row!.id)
      .execute();
    const done = await running;
    expect(done.code, done.stderr).toBe(0);
    expect(done.stdout).toContain(messages.review.contentCheck.runtimeHistoryRouting);
    const id = Number(/项目 (\d+)/.exec(done.stdout)?.[1]);
    expect(done.stdout).toContain(`开启单页应用回退：sitehall deploy ${site} --project ${id} --spa on`);
  });

  it('names a bad argument before reading a file, in one line with where the usage is', async () => {
    const user = await w.createUser();
    const env = { SITEHALL_URL: base, SITEHALL_TOKEN: await tokenOf(user.token) };
    const site = tempDir('sitehall-site-');
    fs.writeFileSync(path.join(site, 'index.html'), '<p>x</p>');
    const usageLine = '运行 sitehall --help 查看用法';
    for (const [args, message] of [
      [['--name', 'a'], '项目名称至少需要2个字符'],
      [['--name', '好名字', '--site-name', 'www'], '站点名“www”是保留名称，请换一个'],
      [['--name', '好名字', '--site-name', 'a--b'], messages.project.siteNameInvalid],
      [['--name', '好名字', '--wait', 'soon'], '--wait 应为 0 到 120 之间的秒数'],
      [['--name', '好名字', '--wait', '600'], '--wait 应为 0 到 120 之间的秒数'],
    ] as const) {
      const res = await sitehall(['deploy', site, ...args], env);
      expect(res.code, res.stderr).toBe(2);
      expect(res.stderr).toContain(message);
      expect(res.stderr).toContain(usageLine);
      expect(res.stderr).not.toContain('用法：');
      expect(res.stderr).not.toContain('计算哈希');
    }
    const notDir = await sitehall(['deploy', path.join(site, 'index.html'), '--name', '好名字'], env);
    expect(notDir.stderr.trim().split('\n')).toEqual([
      `错误：不是目录：${path.join(site, 'index.html')}`,
      usageLine,
    ]);
    const noServer = await sitehall(['deploy', site, '--name', '好名字'], {});
    expect(noServer.code).toBe(2);
    expect(noServer.stderr).toContain('没有服务器地址或令牌');
    expect(noServer.stderr.trim().split('\n')).toHaveLength(2);
    expect(
      await w.ctx.db.selectFrom('projects').select('id').where('owner_id', '=', user.id).execute(),
    ).toEqual([]);
  });
});
