/**
 * The `sitehall` command (packages/cli) against folders that hold more than plain files and
 * folders, run from its sources against a real server on a real port (docs/decisions/deploys.md
 * "Names equal in NFC", "Links stay home", "CLI hash cache"): two names that are one in NFC are
 * refused before anything is sent, by a deploy and by a watch; a cache folder that can't be
 * written never fails a deploy; links that can't be followed are skipped like other links; FIFOs
 * and sockets are said apart from links.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, listenPort, type TestApp, tempDir } from './helpers.js';
import { sitehall, watching } from './support/sitehall-cli.js';

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

/** How many versions a project has. */
async function versionCount(projectId: number): Promise<number> {
  const rows = await t.ctx.db
    .selectFrom('deployments')
    .select('id')
    .where('project_id', '=', projectId)
    .execute();
  return rows.length;
}

/** The account's projects and its deploys still open on the server. */
async function leftOnServer(userId: number) {
  const projects = await t.ctx.db
    .selectFrom('projects')
    .select('id')
    .where('owner_id', '=', userId)
    .execute();
  const open = await t.ctx.db.selectFrom('deploys').select('id').where('user_id', '=', userId).execute();
  return { projects: projects.length, open: open.length };
}

const NFC = 'caf\u00e9.txt';
const NFD = 'cafe\u0301.txt';

function writeFiles(site: string, files: Record<string, string>): void {
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(site, name)), { recursive: true });
    fs.writeFileSync(path.join(site, name), text);
  }
}

describe('names that are one in NFC', () => {
  it('are refused before anything is sent, on a first deploy and on a redeploy; renamed, the deploy is the folder', async () => {
    const user = await t.createUser();
    const env = {
      SITEHALL_URL: url,
      SITEHALL_TOKEN: await apiToken(user.token),
      XDG_CACHE_HOME: tempDir('sitehall-cache-'),
    };
    const site = tempDir('sitehall-nfc-');
    const unique = `${Date.now()}-${Math.random()}`;
    writeFiles(site, {
      'index.html': `<!doctype html><p>首页 ${unique}</p>`,
      'x.txt': `x ${unique}`,
      [NFC]: `composed ${unique}`,
      [NFD]: `decomposed ${unique}`,
    });
    // Two files on Linux; one entry of the manifest, in NFC: one of them was silently left out.
    expect(fs.readdirSync(site)).toHaveLength(4);

    const first = await sitehall(['deploy', site, '--name', '同名文件'], env);
    expect(first.code, first.stderr).toBe(1);
    expect(first.stderr).toContain(`错误：存在重复或仅大小写不同的文件名："${NFD}" 与 "${NFC}"`);
    expect(first.stderr).toContain('Unicode 写法不同');
    expect(first.stderr).not.toContain('需要上传');
    expect(await leftOnServer(user.id)).toEqual({ projects: 0, open: 0 });

    // Two folders of one NFC name: their files would have gone into one folder.
    const folders = tempDir('sitehall-nfc-folders-');
    writeFiles(folders, {
      'index.html': `<!doctype html><p>目录 ${unique}</p>`,
      [`${NFC.replace('.txt', '')}/a.txt`]: 'a',
      [`${NFD.replace('.txt', '')}/b.txt`]: 'b',
    });
    const clash = await sitehall(['deploy', folders, '--name', '同名目录'], env);
    expect(clash.code, clash.stderr).toBe(1);
    expect(clash.stderr).toContain(
      `存在重复或仅大小写不同的文件名："${NFD.replace('.txt', '')}/" 与 "${NFC.replace('.txt', '')}/"`,
    );
    expect(await leftOnServer(user.id)).toEqual({ projects: 0, open: 0 });

    // Without the pair the folder deploys, and its record is the next deploy's base.
    fs.rmSync(path.join(site, NFD));
    const deployed = await sitehall(['deploy', site, '--name', '同名文件'], env);
    expect(deployed.code, deployed.stderr).toBe(0);
    const id = Number(/项目 (\d+)/.exec(deployed.stdout)?.[1]);
    expect(await newestVersionPaths(id)).toEqual(['index.html', 'x.txt', NFC].sort());

    // The pair again, and a file removed: a base-version deploy counted the NFC path twice and
    // never sent the removal (the new version still held x.txt). Refused, nothing made.
    fs.writeFileSync(path.join(site, NFD), `decomposed ${unique}`);
    fs.rmSync(path.join(site, 'x.txt'));
    const again = await sitehall(['deploy', site, '--project', String(id)], env);
    expect(again.code, again.stderr).toBe(1);
    expect(again.stderr).toContain(`错误：存在重复或仅大小写不同的文件名："${NFD}" 与 "${NFC}"`);
    expect(await versionCount(id)).toBe(1);
    expect(await leftOnServer(user.id)).toEqual({ projects: 1, open: 0 });

    // One of them renamed: the new version holds exactly the folder's files.
    fs.renameSync(path.join(site, NFD), path.join(site, 'cafe-2.txt'));
    const renamed = await sitehall(['deploy', site, '--project', String(id)], env);
    expect(renamed.code, renamed.stderr).toBe(0);
    expect(renamed.stdout).toContain('第 2 版');
    expect(await newestVersionPaths(id)).toEqual(['cafe-2.txt', 'index.html', NFC].sort());
  });

  it('that differ only in case are refused before a file is read, files and folders alike', async () => {
    const user = await t.createUser();
    const env = { SITEHALL_URL: url, SITEHALL_TOKEN: await apiToken(user.token) };
    const unique = `${Date.now()}-${Math.random()}`;
    for (const [files, first, second] of [
      [
        { 'index.html': `<p>${unique}</p>`, 'Index.html': `<p>大写 ${unique}</p>` },
        'Index.html',
        'index.html',
      ],
      [{ 'index.html': `<p>${unique}</p>`, 'CSS/a.css': 'a{}', 'css/b.css': 'b{}' }, 'CSS/', 'css/'],
      [
        { 'index.html': `<p>${unique}</p>`, 'About.html': 'x', 'about.html/x.html': 'y' },
        'About.html',
        'about.html/',
      ],
    ] as const) {
      const site = tempDir('sitehall-case-');
      writeFiles(site, files);
      const res = await sitehall(['deploy', site, '--name', '大小写'], env);
      expect(res.code, res.stderr).toBe(1);
      expect(res.stderr).toContain(
        `错误：存在重复或仅大小写不同的文件名："${first}" 与 "${second}"（只有大小写不同`,
      );
      // Said before hashing (the server refused the pair at the finish, after every upload).
      expect(res.stderr).not.toContain('计算哈希');
      expect(await leftOnServer(user.id)).toEqual({ projects: 0, open: 0 });
    }
  });

  it('are said by a watch, which deploys nothing and goes on: once one is renamed, the folder goes', async () => {
    const user = await t.createUser();
    const env = {
      SITEHALL_URL: url,
      SITEHALL_TOKEN: await apiToken(user.token),
      XDG_CACHE_HOME: tempDir('sitehall-cache-'),
    };
    const site = tempDir('sitehall-nfc-watch-');
    const unique = `${Date.now()}-${Math.random()}`;
    writeFiles(site, {
      'index.html': `<!doctype html><p>首页 ${unique}</p>`,
      'x.txt': `x ${unique}`,
      [NFC]: `composed ${unique}`,
    });
    const w = watching(['deploy', site, '--name', '监视同名', '--watch'], env);
    try {
      const id = Number((await w.next(/已部署：项目 (\d+)/))[1]);
      await w.next(/正在监视 .* 的改动/);

      fs.writeFileSync(path.join(site, NFD), `decomposed ${unique}`);
      fs.rmSync(path.join(site, 'x.txt'));
      await w.next(/部署失败：存在重复或仅大小写不同的文件名："cafe\u0301\.txt" 与 "caf\u00e9\.txt"/);
      await w.next(/下一次改动时（或 1 分钟后）再试/);
      expect(await versionCount(id)).toBe(1);
      expect(await leftOnServer(user.id)).toEqual({ projects: 1, open: 0 });

      fs.renameSync(path.join(site, NFD), path.join(site, 'cafe-2.txt'));
      await w.next(/已部署第 2 版：2 个文件有改动/);
      expect(await newestVersionPaths(id)).toEqual(['cafe-2.txt', 'index.html', NFC].sort());

      w.child.kill('SIGINT');
      expect(await w.exited).toBe(0);
    } finally {
      w.child.kill('SIGKILL');
    }
  });
});

describe('a cache folder that cannot be written', () => {
  it('never fails a deploy nor leaves it open: said once, and the deploy goes on', async () => {
    const user = await t.createUser();
    // XDG_CACHE_HOME names a file: every write under it fails with ENOTDIR.
    const notAFolder = path.join(tempDir('sitehall-cache-file-'), 'f');
    fs.writeFileSync(notAFolder, 'x');
    const env = { SITEHALL_URL: url, SITEHALL_TOKEN: await apiToken(user.token), XDG_CACHE_HOME: notAFolder };
    const site = tempDir('sitehall-site-');
    const unique = `${Date.now()}-${Math.random()}`;
    writeFiles(site, {
      'index.html': `<!doctype html><p>首页 ${unique}</p>`,
      'a.html': `<!doctype html><p>A ${unique}</p>`,
    });

    const first = await sitehall(['deploy', site, '--name', '缓存不可写'], env);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).not.toMatch(/Error|\n\s+at /);
    expect(first.stderr.split('无法保存本地缓存')).toHaveLength(2);
    expect(first.stderr).toContain(`提示：无法保存本地缓存 ${path.join(notAFolder, 'sitehall')}（ENOTDIR）`);
    const id = Number(/项目 (\d+)/.exec(first.stdout)?.[1]);
    expect(await newestVersionPaths(id)).toEqual(['a.html', 'index.html']);
    expect(await leftOnServer(user.id)).toEqual({ projects: 1, open: 0 });

    // A redeploy (its hash cache and base record written again) and an unchanged one alike.
    fs.writeFileSync(path.join(site, 'a.html'), `<!doctype html><p>AA ${unique}</p>`);
    const second = await sitehall(['deploy', site, '--project', String(id)], env);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).not.toMatch(/Error|\n\s+at /);
    expect(second.stdout).toContain('第 2 版');
    const third = await sitehall(['deploy', site, '--project', String(id)], env);
    expect(third.code, third.stderr).toBe(0);
    expect(third.stdout).toContain('第 2 版完全相同');
    expect(await leftOnServer(user.id)).toEqual({ projects: 1, open: 0 });
    expect(fs.readFileSync(notAFolder, 'utf8')).toBe('x');
  });

  it('under /proc, where a folder cannot be made, is said, not waited on for ever; nor are settings saved there', async () => {
    // Node's recursive mkdir never returns where mkdir answers ENOENT under a folder that exists.
    const user = await t.createUser();
    const token = await apiToken(user.token);
    const nowhere = `/proc/sitehall-nowhere-${process.pid}`;
    const site = tempDir('sitehall-site-');
    writeFiles(site, { 'index.html': `<!doctype html><p>proc ${Date.now()} ${Math.random()}</p>` });
    const env = { SITEHALL_URL: url, SITEHALL_TOKEN: token, XDG_CACHE_HOME: nowhere };
    const deployed = await sitehall(['deploy', site, '--name', '缓存在 proc'], env);
    expect(deployed.code, deployed.stderr).toBe(0);
    expect(deployed.stderr).toContain(`提示：无法保存本地缓存 ${nowhere}/sitehall（ENOENT）`);
    expect(await leftOnServer(user.id)).toEqual({ projects: 1, open: 0 });

    const login = await sitehall(['login', '--url', url, '--token', token], { XDG_CONFIG_HOME: nowhere });
    expect(login.code).toBe(1);
    expect(login.stderr).toContain(
      `错误：无法保存配置到 ${nowhere}/sitehall（ENOENT）：请设置可写的 XDG_CONFIG_HOME`,
    );
    expect(login.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('Windows’ folder litter', () => {
  it('is never listed, as the server drops it: a folder of only a Thumbs.db is an empty folder', async () => {
    const user = await t.createUser();
    const env = { SITEHALL_URL: url, SITEHALL_TOKEN: await apiToken(user.token) };
    const site = tempDir('sitehall-litter-');
    const unique = `${Date.now()}-${Math.random()}`;
    writeFiles(site, {
      'index.html': `<!doctype html><p>${unique}</p>`,
      'Thumbs.db': 'thumbnails',
      'sub/page.html': `<p>${unique}</p>`,
      'sub/desktop.ini': '[.ShellClassInfo]',
    });
    const res = await sitehall(['deploy', site, '--name', '缩略图'], env);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout + res.stderr).toContain('共 2 个文件');
    const id = Number(/项目 (\d+)/.exec(res.stdout)?.[1]);
    expect(await newestVersionPaths(id)).toEqual(['index.html', 'sub/page.html']);

    const only = tempDir('sitehall-litter-only-');
    writeFiles(only, { 'Thumbs.db': 'thumbnails' });
    const empty = await sitehall(['deploy', only, '--name', '只有缩略图'], env);
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain(`错误：目录中没有文件：${only}`);
    expect(await leftOnServer(user.id)).toEqual({ projects: 1, open: 0 });
  });
});

describe('what is neither a file nor a folder', () => {
  it('skips links that cannot be followed (a loop, a path through a file) like any other link', async () => {
    const user = await t.createUser();
    const env = { SITEHALL_URL: url, SITEHALL_TOKEN: await apiToken(user.token) };
    const site = tempDir('sitehall-loops-');
    writeFiles(site, {
      'index.html': '<!doctype html><title>链接</title><p>你好</p>',
      'sub/page.html': '<!doctype html><p>子页</p>',
    });
    fs.symlinkSync('loop2', path.join(site, 'loop1'));
    fs.symlinkSync('loop1', path.join(site, 'loop2'));
    fs.symlinkSync('index.html/x', path.join(site, 'n.txt'));
    fs.symlinkSync('../sub', path.join(site, 'sub', 'self'));
    const run = await sitehall(['deploy', site, '--name', '循环链接'], env);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      '已跳过符号链接：loop1、loop2、n.txt、sub/self/（只部署普通文件；需要的话请把链接换成实际文件）',
    );
    expect(run.stderr).not.toContain('错误');
    const id = Number(/项目 (\d+)/.exec(run.stdout)?.[1]);
    expect(await newestVersionPaths(id)).toEqual(['index.html', 'sub/page.html']);
  });

  it('says FIFOs and sockets apart from links, and sends neither', async () => {
    const user = await t.createUser();
    const env = { SITEHALL_URL: url, SITEHALL_TOKEN: await apiToken(user.token) };
    const site = tempDir('sitehall-special-');
    writeFiles(site, {
      'index.html': '<!doctype html><title>特殊文件</title><p>你好</p>',
      'logs/readme.txt': '日志',
    });
    execFileSync('mkfifo', [path.join(site, 'pipe')]);
    execFileSync('mkfifo', [path.join(site, 'logs', 'tail')]);
    fs.symlinkSync('index.html', path.join(site, 'home.html'));
    // A socket file exists while its server listens (closing it removes the file).
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(path.join(site, 'app.sock'), resolve));
    try {
      const run = await sitehall(['deploy', site, '--name', '特殊文件'], env);
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toContain(
        '已跳过特殊文件（管道、套接字等）：app.sock、logs/tail、pipe（只部署普通文件）',
      );
      expect(run.stderr).toContain(
        '已跳过符号链接：home.html（只部署普通文件；需要的话请把链接换成实际文件）',
      );
      const id = Number(/项目 (\d+)/.exec(run.stdout)?.[1]);
      expect(await newestVersionPaths(id)).toEqual(['index.html', 'logs/readme.txt']);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
