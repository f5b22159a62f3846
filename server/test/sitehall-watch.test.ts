/**
 * `sitehall deploy --watch` (docs/decisions/deploys.md "Watching a folder"): the folder as the
 * watch keeps it from change events is the folder a fresh listing finds, whatever is done to it;
 * against a real server on a real port, each change goes as a version built on the last with only
 * the changed files sent, a refused change is said and the watch goes on, a revoked token ends it,
 * and what it leaves (the base record, the hash cache) makes the next plain deploy a no-op.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FINE_RACY_MS } from '../../packages/cli/src/cache.js';
import { hashFiles, listFiles } from '../../packages/cli/src/files.js';
import { changesBetween, WatchedFolder } from '../../packages/cli/src/watch.js';
import { createTestApp, listenPort, type TestApp, tempDir } from './helpers.js';
import { forwardRequest } from './support/forward.js';
import { sitehall, watching } from './support/sitehall-cli.js';

let t: TestApp;
let url: string;
beforeAll(async () => {
  t = await createTestApp();
  url = `http://127.0.0.1:${await listenPort(t)}`;
});
afterAll(() => t.close());

const sha = (text: string) => createHash('sha256').update(text).digest('hex');

/** The manifest a fresh listing of the folder gives (what a plain deploy would send). */
async function listed(dir: string, includeHidden = false): Promise<Map<string, string>> {
  const files = listFiles(dir, { includeHidden });
  await hashFiles(
    files,
    files.map((_, i) => i),
  );
  return new Map(files.map((f) => [f.path.normalize('NFC'), f.sha256]));
}

describe('the watched folder', () => {
  it('ends up as a fresh listing finds the folder, after edits, new and renamed folders, removals, hidden names, and files and folders swapping places', async () => {
    const dir = tempDir('sitehall-watched-');
    const write = (rel: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, rel), text);
    };
    write('index.html', '<!doctype html><p>首页</p>');
    write('css/a.css', 'body{}');
    write('docs/old/page.html', '<p>旧</p>');
    const files = listFiles(dir);
    await hashFiles(
      files,
      files.map((_, i) => i),
    );
    const folder = new WatchedFolder(dir, false, 10);
    folder.start();
    folder.adopt(files);
    let settled = 0;
    folder.listen(
      () => settled++,
      (err) => {
        throw err;
      },
    );
    try {
      const deployed = folder.manifest();
      /**
       * Makes the change, then brings the watch up to date from its events until it holds what a
       * listing finds (events can come in more than one burst: a new folder is watched once seen).
       * A refresh without events changes nothing, so only the events can make it equal.
       */
      const step = async (change: () => void) => {
        const before = settled;
        change();
        const expected = await listed(dir);
        await expect
          .poll(
            async () => {
              await folder.refresh();
              return folder.manifest();
            },
            { timeout: 20_000 },
          )
          .toEqual(expected);
        // And the change was told, once the folder had been still for the quiet time: a timer that
        // a loaded machine may run after the refresh above has already caught up.
        await expect.poll(() => settled, { timeout: 20_000 }).toBeGreaterThan(before);
      };
      await step(() => write('index.html', '<!doctype html><p>首页，改过</p>'));
      await step(() => write('blog/2026/post.html', '<p>新文章</p>'));
      await step(() => fs.renameSync(path.join(dir, 'blog'), path.join(dir, 'news')));
      await step(() => fs.rmSync(path.join(dir, 'docs'), { recursive: true }));
      // Hidden files and skipped folders stay out, as in a listing.
      await step(() => {
        write('.env', 'SECRET=1');
        write('node_modules/x/index.js', 'module.exports = 1');
        write('css/.cache/tmp', 'x');
        write('css/b.css', 'p{}');
      });
      // A file replaced by a folder of the same name, and an editor's save by renaming a temporary file.
      await step(() => {
        fs.rmSync(path.join(dir, 'css/a.css'));
        write('css/a.css/inner.css', 'a{}');
        write('about.html.tmp', '<p>关于</p>');
        fs.renameSync(path.join(dir, 'about.html.tmp'), path.join(dir, 'about.html'));
      });
      // A folder replaced by a file of its name.
      await step(() => {
        fs.rmSync(path.join(dir, 'news'), { recursive: true });
        write('news', '<p>一个文件</p>');
      });
      const now = folder.manifest();
      expect(changesBetween(deployed, now)).toEqual({
        'index.html': sha('<!doctype html><p>首页，改过</p>'),
        news: sha('<p>一个文件</p>'),
        'docs/old/page.html': null,
        'css/a.css': null,
        'css/a.css/inner.css': sha('a{}'),
        'css/b.css': sha('p{}'),
        'about.html': sha('<p>关于</p>'),
      });
    } finally {
      folder.close();
    }
  });
});

async function apiToken(session: string): Promise<{ id: number; token: string }> {
  const res = await t.request({
    method: 'POST',
    url: '/api/auth/tokens',
    token: session,
    body: { name: 'watch' },
  });
  return res.json().data as { id: number; token: string };
}

/** A new account's CLI settings with `proxy` (a test's, in front of the server) listening as its server. */
async function throughProxy(proxy: http.Server): Promise<Record<string, string>> {
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const user = await t.createUser();
  const { token } = await apiToken(user.token);
  return {
    SITEHALL_URL: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    SITEHALL_TOKEN: token,
    XDG_CACHE_HOME: tempDir('sitehall-cache-'),
  };
}

/** The newest version's files: path → SHA-256. */
async function newestFiles(projectId: number): Promise<{ version: number; files: Record<string, string> }> {
  const d = await t.ctx.db
    .selectFrom('deployments')
    .select(['id', 'version'])
    .where('project_id', '=', projectId)
    .orderBy('version', 'desc')
    .executeTakeFirstOrThrow();
  const rows = await t.ctx.db
    .selectFrom('deployment_files')
    .select(['path', 'sha256'])
    .where('deployment_id', '=', d.id)
    .execute();
  return { version: d.version, files: Object.fromEntries(rows.map((r) => [r.path, r.sha256])) };
}

describe('the watched folder removed and written again', () => {
  it('is watched again once back, and taken whole; a folder that stays gone ends the watch, saying so', async () => {
    const parent = tempDir('sitehall-rebuilt-');
    const dir = path.join(parent, 'dist');
    const build = (marker: string) => {
      fs.mkdirSync(path.join(dir, 'assets'), { recursive: true });
      fs.writeFileSync(path.join(dir, 'index.html'), `<!doctype html><p>${marker}</p>`);
      fs.writeFileSync(path.join(dir, 'assets', `app-${marker}.js`), `console.log("${marker}")`);
    };
    build('first');
    const files = listFiles(dir);
    await hashFiles(
      files,
      files.map((_, i) => i),
    );
    const folder = new WatchedFolder(dir, false, 10);
    folder.start();
    folder.adopt(files);
    let settled = 0;
    const failures: Error[] = [];
    folder.listen(
      () => settled++,
      (err) => failures.push(err),
    );
    try {
      // A build that removes its output folder, then writes it again.
      fs.rmSync(dir, { recursive: true });
      build('second');
      const expected = await listed(dir);
      await expect
        .poll(async () => {
          if (settled > 0) await folder.refresh();
          return folder.manifest();
        })
        .toEqual(expected);
      expect(expected.has('assets/app-second.js')).toBe(true);
      // Later changes still reach the watch.
      const before = settled;
      fs.writeFileSync(path.join(dir, 'index.html'), '<!doctype html><p>third</p>');
      await expect.poll(() => settled).toBeGreaterThan(before);
      expect(failures).toEqual([]);
    } finally {
      folder.close();
    }

    // Gone for good: the watch ends with the reason.
    const gone = new WatchedFolder(dir, false, 10, 300);
    gone.start();
    const ended: Error[] = [];
    gone.listen(
      () => {},
      (err) => ended.push(err),
    );
    try {
      fs.rmSync(parent, { recursive: true });
      await expect.poll(() => ended.map((e) => e.message)).toEqual([`目录已被删除：${dir}`]);
    } finally {
      gone.close();
    }
  });
});

describe('sitehall deploy --watch', () => {
  it('deploys each change as a version built on the last, sending only what changed, and leaves the folder ready for a plain deploy', async () => {
    const user = await t.createUser();
    const { token } = await apiToken(user.token);
    const env = { SITEHALL_URL: url, SITEHALL_TOKEN: token, XDG_CACHE_HOME: tempDir('sitehall-cache-') };
    const site = tempDir('sitehall-site-');
    const unique = `${Date.now()}-${Math.random()}`;
    let lastWrite = 0;
    const write = (rel: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(site, rel)), { recursive: true });
      fs.writeFileSync(path.join(site, rel), text);
      lastWrite = Date.now();
    };
    write('index.html', `<!doctype html><p>首页 ${unique}</p>`);
    write('about.html', `<!doctype html><p>关于 ${unique}</p>`);
    write('css/a.css', `body { content: "${unique}"; }`);

    const w = watching(['deploy', site, '--name', '监视站点', '--watch'], env);
    try {
      const id = Number((await w.next(/已部署：项目 (\d+)/))[1]);
      await w.next(/正在监视 .* 的改动/);

      write('about.html', `<!doctype html><p>关于我们 ${unique}</p>`);
      await w.next(/已部署第 2 版：1 个文件有改动，上传 1 个（\d+ 毫秒）/);
      expect((await newestFiles(id)).files['about.html']).toBe(
        sha(`<!doctype html><p>关于我们 ${unique}</p>`),
      );

      // A new folder, and a hidden file that stays home.
      write('blog/post.html', `<!doctype html><p>文章 ${unique}</p>`);
      write('.env', 'SECRET=watch');
      await w.next(/已部署第 3 版：1 个文件有改动，上传 1 个/);
      // A file removed, and a content the version holds already at another path (nothing uploaded).
      fs.rmSync(path.join(site, 'css/a.css'));
      write('copy.html', `<!doctype html><p>首页 ${unique}</p>`);
      await w.next(/已部署第 4 版：2 个文件有改动，上传 0 个/);
      const newest = await newestFiles(id);
      expect(newest.version).toBe(4);
      expect(newest.files).toEqual({
        'index.html': sha(`<!doctype html><p>首页 ${unique}</p>`),
        'copy.html': sha(`<!doctype html><p>首页 ${unique}</p>`),
        'about.html': sha(`<!doctype html><p>关于我们 ${unique}</p>`),
        'blog/post.html': sha(`<!doctype html><p>文章 ${unique}</p>`),
      });
      // Only the newest version waits for review: each change replaced the one before.
      const pending = await t.ctx.db
        .selectFrom('deployments')
        .select('version')
        .where('project_id', '=', id)
        .where('status', '=', 'pending')
        .execute();
      expect(pending).toEqual([{ version: 4 }]);

      // The watch's end writes the hash cache; a file written within FINE_RACY_MS of that is not
      // trusted by it (its mtime proves nothing: cache.ts). On a quick machine version 4 was
      // deployed and the watch stopped sooner than that after copy.html's write (one CI run):
      // the stop waits until the last write is at least that old (a bound from below only).
      const settled = lastWrite + FINE_RACY_MS + 50 - Date.now();
      if (settled > 0) await new Promise((resolve) => setTimeout(resolve, settled));
      w.child.kill('SIGINT');
      expect(await w.exited).toBe(0);
      expect(w.output()).toContain('已停止监视');

      // The record of version 4 and the hash cache: a plain deploy reads nothing and changes nothing.
      // Its own working folder: the CLI links the folder it runs in (.sitehall/project.json).
      const plain = await sitehall(['deploy', site, '--project', String(id)], env);
      const again = { code: plain.code, out: plain.stdout + plain.stderr };
      expect(again.code, again.out).toBe(0);
      expect(again.out).toContain('哈希缓存：4 个文件未改动，计算 0 个');
      expect(again.out).toContain('第 4 版完全相同，未创建新版本');
    } finally {
      w.child.kill('SIGKILL');
    }
  });

  it('deploys a change made while its first deploy was under way', async () => {
    // A proxy that holds the first finish until the folder has been changed.
    const site = tempDir('sitehall-site-');
    const unique = `${Date.now()}-${Math.random()}`;
    fs.writeFileSync(path.join(site, 'index.html'), `<!doctype html><p>开始 ${unique}</p>`);
    const target = new URL(url);
    let finishes = 0;
    const proxy = http.createServer((req, res) => {
      if (req.method === 'POST' && /\/finish$/.test(req.url ?? '') && finishes++ === 0) {
        fs.writeFileSync(path.join(site, 'late.html'), `<p>部署途中 ${unique}</p>`);
      }
      forwardRequest(target, req, res);
    });
    const env = await throughProxy(proxy);
    const w = watching(['deploy', site, '--name', '监视途中', '--watch'], env);
    try {
      const id = Number((await w.next(/已部署：项目 (\d+)/))[1]);
      // Version 1 was listed before the file came; the watch sends it without another change.
      await w.next(/已部署第 2 版：1 个文件有改动，上传 1 个/);
      expect(Object.keys((await newestFiles(id)).files).sort()).toEqual(['index.html', 'late.html']);
    } finally {
      w.child.kill('SIGKILL');
      proxy.close();
    }
  });

  it('on Ctrl+C cancels a deploy being sent, and waits for one whose finish was sent, then stops', async () => {
    // A proxy that holds the watch's file transfers (the first round) or its finish (the second)
    // until the test has sent SIGINT.
    const target = new URL(url);
    let hold: 'files' | 'finish' = 'files';
    let deploys = 0;
    let heldDeploy = '';
    const deleted: string[] = [];
    let release: (() => void) | undefined;
    const proxy = http.createServer((req, res) => {
      const at = req.url ?? '';
      if (req.method === 'DELETE') deleted.push(at.split('/').pop()!);
      const files = /\/api\/deploys\/[^/]+\/files/.test(at);
      const finish = req.method === 'POST' && /\/finish$/.test(at);
      if (finish) deploys += 1;
      // The first deploy (before the watch) goes through.
      if (
        deploys >= 1 &&
        !(finish && deploys === 1) &&
        ((hold === 'files' && files) || (hold === 'finish' && finish))
      ) {
        heldDeploy = at.split('/')[3]!;
        release = () => forwardRequest(target, req, res);
        return;
      }
      forwardRequest(target, req, res);
    });
    const env = await throughProxy(proxy);
    const unique = `${Date.now()}-${Math.random()}`;
    try {
      for (const round of ['files', 'finish'] as const) {
        hold = round;
        deploys = 0;
        release = undefined;
        const site = tempDir('sitehall-site-');
        fs.writeFileSync(path.join(site, 'index.html'), `<!doctype html><p>${round} ${unique}</p>`);
        const w = watching(['deploy', site, '--name', `停止 ${round}`, '--watch'], env);
        try {
          const id = Number((await w.next(/已部署：项目 (\d+)/))[1]);
          await w.next(/正在监视 .* 的改动/);
          fs.writeFileSync(path.join(site, 'page.html'), `<p>新页 ${round} ${unique}</p>`);
          await expect.poll(() => release !== undefined, { timeout: 60_000 }).toBe(true);
          w.child.kill('SIGINT');
          if (round === 'files') {
            await w.next(/正在取消进行中的部署/);
            expect(await w.exited).toBe(0);
            expect(deleted).toContain(heldDeploy);
            // Nothing of it is left open on the server, and no version was made.
            const open = await t.ctx.db
              .selectFrom('deploys')
              .select('id')
              .where('id', '=', heldDeploy)
              .execute();
            expect(open).toEqual([]);
            expect((await newestFiles(id)).version).toBe(1);
            expect(w.output()).not.toContain('部署失败');
          } else {
            await w.next(/正在等待进行中的部署完成/);
            release!();
            await w.next(/已部署第 2 版：1 个文件有改动，上传 1 个/);
            expect(await w.exited).toBe(0);
            expect((await newestFiles(id)).version).toBe(2);
          }
          expect(w.output()).toMatch(/已停止监视\s*$/);
        } finally {
          w.child.kill('SIGKILL');
        }
      }
    } finally {
      proxy.closeAllConnections();
      proxy.close();
    }
  });

  it('says why a change was refused and goes on watching; a revoked token ends the watch', async () => {
    const user = await t.createUser();
    const { id: tokenId, token } = await apiToken(user.token);
    const env = { SITEHALL_URL: url, SITEHALL_TOKEN: token, XDG_CACHE_HOME: tempDir('sitehall-cache-') };
    const site = tempDir('sitehall-site-');
    const unique = `${Date.now()}-${Math.random()}`;
    fs.writeFileSync(path.join(site, 'index.html'), `<!doctype html><p>规则 ${unique}</p>`);
    const w = watching(['deploy', site, '--name', '监视规则', '--watch'], env);
    try {
      const id = Number((await w.next(/已部署：项目 (\d+)/))[1]);
      await w.next(/正在监视/);
      fs.writeFileSync(path.join(site, '_redirects'), `/old /index.html 301\n/broken\n`);
      await w.next(/部署失败：_redirects 第 2 行：每条规则至少要有来源路径和目标两项/);
      expect((await newestFiles(id)).version).toBe(1);
      // Fixed: the next change goes, with the folder as it is now.
      fs.writeFileSync(path.join(site, '_redirects'), `/old /index.html 301\n`);
      await w.next(/已部署第 2 版：1 个文件有改动，上传 1 个/);
      expect(Object.keys((await newestFiles(id)).files).sort()).toEqual(['_redirects', 'index.html']);
      // Nothing of the refused change is left open.
      const open = await t.ctx.db.selectFrom('deploys').select('id').where('user_id', '=', user.id).execute();
      expect(open).toEqual([]);

      await t.request({ method: 'DELETE', url: `/api/auth/tokens/${tokenId}`, token: user.token });
      fs.writeFileSync(path.join(site, 'index.html'), `<!doctype html><p>令牌已撤销 ${unique}</p>`);
      await w.next(/API 令牌无效或已被撤销，停止监视/);
      expect(await w.exited).toBe(1);
      expect((await newestFiles(id)).version).toBe(2);
    } finally {
      w.child.kill('SIGKILL');
    }
  });

  it('ends the watch when its project is deleted, saying so, rather than retrying every minute', async () => {
    const user = await t.createUser();
    const { token } = await apiToken(user.token);
    const env = { SITEHALL_URL: url, SITEHALL_TOKEN: token, XDG_CACHE_HOME: tempDir('sitehall-cache-') };
    const site = tempDir('sitehall-site-');
    const unique = `${Date.now()}-${Math.random()}`;
    fs.writeFileSync(path.join(site, 'index.html'), `<!doctype html><p>删除 ${unique}</p>`);
    const w = watching(['deploy', site, '--name', '监视删除', '--watch'], env);
    try {
      const id = Number((await w.next(/已部署：项目 (\d+)/))[1]);
      await w.next(/正在监视/);
      const removed = await t.request({ method: 'DELETE', url: `/api/projects/${id}`, token: user.token });
      expect(removed.statusCode).toBe(200);
      fs.writeFileSync(path.join(site, 'index.html'), `<!doctype html><p>删除之后 ${unique}</p>`);
      await w.next(new RegExp(`错误：项目不存在（项目 ${id} 已被删除，或此账号已无权更新它），停止监视`));
      expect(await w.exited).toBe(1);
      expect(w.output()).not.toContain('再试');
      // Nothing left open by the refused start.
      expect(
        await t.ctx.db.selectFrom('deploys').select('id').where('user_id', '=', user.id).execute(),
      ).toEqual([]);
    } finally {
      w.child.kill('SIGKILL');
    }
  });

  it('waits out the hourly upload limit as long as the server asks, saying so, and asks nothing meanwhile', async () => {
    const admin = await t.adminToken();
    const limit = (n: number) =>
      t.request({ method: 'PUT', url: '/api/admin/config', token: admin, body: { max_uploads_per_hour: n } });
    // The first deploy and one change an hour.
    expect((await limit(2)).statusCode).toBe(200);
    try {
      const user = await t.createUser();
      const { token } = await apiToken(user.token);
      const env = { SITEHALL_URL: url, SITEHALL_TOKEN: token, XDG_CACHE_HOME: tempDir('sitehall-cache-') };
      const site = tempDir('sitehall-site-');
      const unique = `${Date.now()}-${Math.random()}`;
      fs.writeFileSync(path.join(site, 'index.html'), `<!doctype html><p>限额 ${unique}</p>`);
      const w = watching(['deploy', site, '--name', '监视限额', '--watch'], env);
      try {
        const id = Number((await w.next(/已部署：项目 (\d+)/))[1]);
        await w.next(/正在监视/);
        fs.writeFileSync(path.join(site, 'a.html'), `<p>一 ${unique}</p>`);
        await w.next(/已部署第 2 版/);
        fs.writeFileSync(path.join(site, 'b.html'), `<p>二 ${unique}</p>`);
        // The server's words, and its Retry-After (most of an hour) as the wait.
        await w.next(
          /部署失败：上传过于频繁：每小时最多上传 2 次.*\n {2}(5\d|60) 分钟后再试，期间的改动届时一并部署/,
        );
        // Another save during the wait asks the server nothing (a refused start counts against the
        // start rate too: saves every few seconds kept the account refused for as long as they went
        // on); it is said once, with the time the changes will go.
        fs.writeFileSync(path.join(site, 'c.html'), `<p>三 ${unique}</p>`);
        await w.next(/\d\d:\d\d:\d\d 有改动，将在 \d\d:\d\d:\d\d 一并部署/);
        expect(w.output().match(/部署失败/g)).toHaveLength(1);
        expect((await newestFiles(id)).version).toBe(2);
        expect(
          await t.ctx.db.selectFrom('deploys').select('id').where('user_id', '=', user.id).execute(),
        ).toEqual([]);
      } finally {
        w.child.kill('SIGKILL');
      }
    } finally {
      await limit(100);
    }
  });

  it('after a 429 asks nothing until its Retry-After is over, then deploys the changes made meanwhile in one version', async () => {
    // A proxy that answers the watch's first start (the second start of the run) 429 with a wait of
    // 2 s, as the start rate would, and counts the starts that reach it.
    const site = tempDir('sitehall-site-');
    const unique = `${Date.now()}-${Math.random()}`;
    fs.writeFileSync(path.join(site, 'index.html'), `<!doctype html><p>频率 ${unique}</p>`);
    const target = new URL(url);
    let starts = 0;
    const proxy = http.createServer((req, res) => {
      if (req.method === 'POST' && req.url === '/api/deploys' && ++starts === 2) {
        req.resume();
        res.writeHead(429, { 'content-type': 'application/json; charset=utf-8', 'retry-after': '2' });
        res.end(JSON.stringify({ success: false, message: '开始部署过于频繁：请稍后再试' }));
        return;
      }
      forwardRequest(target, req, res);
    });
    const env = await throughProxy(proxy);
    const w = watching(['deploy', site, '--name', '监视频率', '--watch'], env);
    try {
      const id = Number((await w.next(/已部署：项目 (\d+)/))[1]);
      await w.next(/正在监视/);
      fs.writeFileSync(path.join(site, 'a.html'), `<p>一 ${unique}</p>`);
      await w.next(/部署失败：开始部署过于频繁：请稍后再试\n {2}2 秒后再试，期间的改动届时一并部署/);
      fs.writeFileSync(path.join(site, 'b.html'), `<p>二 ${unique}</p>`);
      await w.next(/有改动，将在 \d\d:\d\d:\d\d 一并部署/);
      // The wait over: both changes in one version, from one more start.
      await w.next(/已部署第 2 版：2 个文件有改动，上传 2 个/);
      expect(starts).toBe(3);
      expect(Object.keys((await newestFiles(id)).files).sort()).toEqual(['a.html', 'b.html', 'index.html']);
    } finally {
      w.child.kill('SIGKILL');
      proxy.close();
    }
  });

  it('exits with the error when the first deploy is refused, rather than watching', async () => {
    const user = await t.createUser();
    const { token } = await apiToken(user.token);
    const site = tempDir('sitehall-site-');
    fs.writeFileSync(path.join(site, 'index.html'), '<!doctype html><p>x</p>');
    fs.writeFileSync(path.join(site, '_redirects'), '/broken\n');
    const w = watching(['deploy', site, '--name', '监视失败', '--watch'], {
      SITEHALL_URL: url,
      SITEHALL_TOKEN: token,
      XDG_CACHE_HOME: tempDir('sitehall-cache-'),
    });
    expect(await w.exited).toBe(1);
    expect(w.output()).toContain('错误：_redirects 第 1 行');
    expect(w.output()).not.toContain('正在监视');
  });

  it('is refused with --json, before anything is read or sent', async () => {
    const w = watching(['deploy', tempDir('sitehall-site-'), '--name', 'x', '--watch', '--json'], {
      SITEHALL_URL: url,
      SITEHALL_TOKEN: 'unused',
    });
    expect(await w.exited).toBe(2);
    expect(w.output()).toContain('错误：--watch 不能与 --json 同时使用');
  });
});
