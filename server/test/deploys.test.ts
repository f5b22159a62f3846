/**
 * Digest deploys (docs/decisions/deploys.md "Digest deploys"): the manifest, only the missing contents
 * sent, finish into a pending version as an upload makes; a body that doesn't match its hash, an
 * unknown or foreign deploy, path rules before any byte is sent, and the expiry sweep, which also
 * keeps the orphan sweep off the blobs of a deploy still running; a PUT over the per-file limit or
 * the owner's quota.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { Readable } from 'node:stream';
import { DEPLOY_MANIFEST_MAX_BYTES, format, formatBytes, messages } from '@sitehall/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../src/domain/actor.js';
import { NotFound } from '../src/domain/errors.js';
import { sweepLeftovers } from '../src/jobs/sweep.js';
import { auditEntries, createTestApp, expectFailure, listTree, type TestApp } from './helpers.js';
import { deployServiceBeside } from './support/deploy-instance.js';

const m = messages.deploy;
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const sha = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');

function site(extra: Record<string, string> = {}): Record<string, string> {
  return {
    'index.html':
      '<!doctype html><html><head><link rel="stylesheet" href="css/a.css"></head><body>首页</body></html>',
    'css/a.css': 'body { color: #123; }',
    'about/index.html': '<!doctype html><html><body>关于</body></html>',
    ...extra,
  };
}

function manifestOf(files: Record<string, string>) {
  return Object.fromEntries(Object.entries(files).map(([p, c]) => [p, sha(c)]));
}

async function start(token: string, body: Record<string, unknown>) {
  return t.request({ method: 'POST', url: '/api/deploys', token, body });
}

async function put(token: string, deployId: string, hash: string, content: string | Buffer) {
  return t.request({
    method: 'PUT',
    url: `/api/deploys/${deployId}/files/${hash}`,
    token,
    payload: typeof content === 'string' ? Buffer.from(content) : content,
    headers: { 'content-type': 'application/octet-stream' },
  });
}

/** Start → PUT what is required → finish; returns what was required and the finished answer. */
async function deploy(token: string, files: Record<string, string>, target: Record<string, unknown>) {
  const started = await start(token, { ...target, files: manifestOf(files) });
  expect(started.statusCode, started.body).toBe(201);
  const { deploy_id, required } = started.json().data as { deploy_id: string; required: string[] };
  const byHash = new Map(Object.values(files).map((c) => [sha(c), c]));
  for (const h of required) {
    const res = await put(token, deploy_id, h, byHash.get(h)!);
    expect(res.statusCode, res.body).toBe(200);
  }
  const finished = await t.request({ method: 'POST', url: `/api/deploys/${deploy_id}/finish`, token });
  return { required, finished };
}

async function counts() {
  const n = async (table: 'deploys' | 'blob_leases') =>
    Number(
      (
        await t.ctx.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return { deploys: await n('deploys'), leases: await n('blob_leases') };
}

describe('digest deploys', () => {
  it('sends only what the server lacks: everything, then the changed file, then nothing', async () => {
    const user = await t.createUser();
    const before = await counts();
    const files = site({ 'js/app.js': `console.log(${Date.now()});` });
    const first = await deploy(user.token, files, { project_name: '摘要部署', description: '命令行' });
    expect(first.finished.statusCode, first.finished.body).toBe(201);
    const project = first.finished.json().data.project;
    expect(project.status).toBe('pending');
    expect(project.name).toBe('摘要部署');
    // Recorded as a digest deploy, so the review page says 命令行部署 (upload_type stays 'files').
    expect([project.upload_type, project.upload_source]).toEqual(['files', 'deploy']);
    // css/a.css and the rest may already be held from another test's identical content; the new
    // script is certainly sent.
    expect(first.required).toContain(sha(files['js/app.js']!));
    // The finish answers the project's detail without its files (the client has them:
    // docs/decisions/deploys.md "The finish's answer"); the detail page lists them.
    expect(project.files).toBeUndefined();
    const detail = await t.request({ url: `/api/projects/${project.id}`, token: user.token });
    const { files: listed, ...detailed } = detail.json().data.project;
    expect(detailed).toEqual(project);
    expect(listed.map((f: { file_name: string }) => f.file_name).sort()).toEqual(Object.keys(files).sort());

    const changed = { ...files, 'about/index.html': '<!doctype html><html><body>关于我们 v2</body></html>' };
    const second = await deploy(user.token, changed, { project_id: project.id });
    expect(second.finished.statusCode, second.finished.body).toBe(201);
    expect(second.required).toEqual([sha(changed['about/index.html']!)]);

    // The same files again: nothing is opened and no version waits for review.
    const same = await start(user.token, { project_id: project.id, files: manifestOf(changed) });
    expect(same.statusCode, same.body).toBe(201);
    expect(same.json()).toMatchObject({
      message: format(m.deployUnchanged, { version: 2 }),
      data: { deploy_id: null, required: [], unchanged_version: 2 },
    });
    // With the operating system's litter beside them, still the same files: it is neither asked for
    // nor a change (an upload drops it; the version never holds it).
    const littered = {
      ...changed,
      'Thumbs.db': `缩略图缓存 ${Date.now()}`,
      'img/desktop.ini': '[.ShellClassInfo]',
      '__MACOSX/._index.html': 'resource fork',
    };
    const again = await start(user.token, { project_id: project.id, files: manifestOf(littered) });
    expect(again.json()).toMatchObject({ data: { deploy_id: null, required: [], unchanged_version: 2 } });
    // A file moved (same contents, new path) is a change, with nothing to send.
    const { 'css/a.css': css, ...rest }: Record<string, string> = changed;
    const third = await deploy(user.token, { ...rest, 'css/b.css': css! }, { project_id: project.id });
    expect(third.required).toEqual([]);
    expect(third.finished.statusCode).toBe(201);
    const versions = await t.ctx.db
      .selectFrom('deployments')
      .select(['version', 'status', 'file_count', 'upload_source'])
      .where('project_id', '=', project.id)
      .orderBy('version')
      .execute();
    expect(versions.map((v) => v.file_count)).toEqual([4, 4, 4]);
    expect(versions.map((v) => v.upload_source)).toEqual(['deploy', 'deploy', 'deploy']);
    expect(versions.at(-1)!.status).toBe('pending');
    const audit = (await auditEntries(t, { targetId: project.id })).filter(
      (a) => a.target_type === 'project',
    );
    expect(audit.map((a) => a.action)).toEqual([
      'project.upload',
      'project.new_version',
      'project.new_version',
    ]);
    expect(await counts()).toEqual(before);
    expect(listTree(path.join(t.dataDir, 'staging'))).toEqual([]);
  });

  it('refuses a body that does not match its hash, and stores nothing of it', async () => {
    const user = await t.createUser();
    const files = { 'index.html': `<!doctype html><p>${Math.random()}</p>` };
    const started = await start(user.token, { project_name: '哈希不符', files: manifestOf(files) });
    const { deploy_id, required } = started.json().data;
    const res = await put(user.token, deploy_id, required[0], 'something else');
    expectFailure(res, 400, `${m.hashMismatch.replace('{sha256}', required[0])}`);
    expect(await t.ctx.store.stat(required[0])).toBeNull();
    expect(await t.ctx.store.stat(sha('something else'))).toBeNull();
    expect(listTree(path.join(t.dataDir, 'staging'))).toEqual([]);
    const notListed = await put(user.token, deploy_id, sha('other'), 'other');
    expectFailure(notListed, 400, m.hashNotInDeploy.replace('{sha256}', sha('other')));
    expectFailure(await put(user.token, deploy_id, 'NOT-A-HASH', 'x'), 400, m.hashInvalid);
    const early = await t.request({
      method: 'POST',
      url: `/api/deploys/${deploy_id}/finish`,
      token: user.token,
    });
    expectFailure(early, 400, m.filesMissing.replace('{n}', '1'));
  });

  it('refuses a file over the per-file limit with 413, and stores nothing of it', async () => {
    const admin = await t.adminToken();
    const config = async (body: Record<string, unknown>) => {
      const res = await t.request({ method: 'PUT', url: '/api/admin/config', token: admin, body });
      expect(res.statusCode, res.body).toBe(200);
    };
    const before = (await t.request({ url: '/api/admin/config', token: admin })).json().data.config;
    expect(before.max_file_bytes).toBeTypeOf('number');
    await config({ max_file_bytes: 1024 });
    try {
      const user = await t.createUser();
      const big = `<!doctype html><p>${Math.random()}</p>`.padEnd(1025, 'x');
      const started = await start(user.token, {
        project_name: '单个文件过大',
        files: { 'index.html': sha(big) },
      });
      expect(started.statusCode, started.body).toBe(201);
      const { deploy_id } = started.json().data;
      const res = await put(user.token, deploy_id, sha(big), big);
      expectFailure(res, 413, format(messages.project.fileTooLarge, { size: formatBytes(1024) }));
      expect(await t.ctx.store.stat(sha(big))).toBeNull();
      expect(listTree(path.join(t.dataDir, 'staging'))).toEqual([]);
      // A file at the limit is taken.
      const fits = `<!doctype html><p>${Math.random()}</p>`.padEnd(1024, 'x');
      const again = await start(user.token, { project_name: '刚好', files: { 'index.html': sha(fits) } });
      expect((await put(user.token, again.json().data.deploy_id, sha(fits), fits)).statusCode).toBe(200);
    } finally {
      await config({ max_file_bytes: before.max_file_bytes });
    }
  });

  it('refuses a file over the owner’s storage quota with 413, and stores nothing of it', async () => {
    const user = await t.createUser();
    const quota = 10 * 1024 * 1024;
    const set = await t.request({
      method: 'PATCH',
      url: `/api/admin/users/${user.id}`,
      token: await t.adminToken(),
      body: { storage_quota_bytes: quota },
    });
    expect(set.statusCode, set.body).toBe(200);
    const big = Buffer.alloc(quota + 1024, `${Math.random()}`);
    const started = await start(user.token, { project_name: '超出配额', files: { 'data.txt': sha(big) } });
    expect(started.statusCode, started.body).toBe(201);
    const { deploy_id } = started.json().data;
    const res = await put(user.token, deploy_id, sha(big), big);
    expectFailure(
      res,
      413,
      format(messages.project.storageQuotaExceeded, {
        used: formatBytes(0),
        quota: formatBytes(quota),
        needed: formatBytes(big.length),
      }),
    );
    expect(await t.ctx.store.stat(sha(big))).toBeNull();
    expect(listTree(path.join(t.dataDir, 'staging'))).toEqual([]);
  });

  it('takes PUTs and the finish on an instance that did not begin the deploy', async () => {
    // A second deploy service over the same database and store: another instance, or this one
    // after a restart, which knows nothing of the deploy but its row.
    const other = deployServiceBeside(t);
    const user = await t.createUser();
    const actor: Actor = { id: user.id, username: user.username, role: 'user', via: 'token', sessionId: 0 };
    const held = `<!doctype html><p>已有 ${Math.random()}</p>`;
    await deploy(user.token, { 'index.html': held }, { project_name: '已有内容' });
    const files = {
      'index.html': `<!doctype html><p>${Math.random()}</p>`,
      'a.css': `p { color: #${Math.floor(Math.random() * 0xfff)} }`,
      'old.html': held,
    };
    const started = await start(user.token, { project_name: '跨实例', files: manifestOf(files) });
    const { deploy_id, required } = started.json().data as { deploy_id: string; required: string[] };
    expect(required.sort()).toEqual([sha(files['index.html']), sha(files['a.css'])].sort());
    const body = (s: string) => Readable.from([Buffer.from(s)]);

    await expect(other.receiveFile(actor, deploy_id, sha('other'), body('other'))).rejects.toThrow(
      m.hashNotInDeploy.replace('{sha256}', sha('other')),
    );
    const stranger = { ...actor, id: (await t.createUser()).id };
    await expect(
      other.receiveFile(stranger, deploy_id, sha(files['a.css']), body(files['a.css'])),
    ).rejects.toBeInstanceOf(NotFound);
    // One content through each instance, and one the store held at start (sent anyway: accepted).
    await other.receiveFile(actor, deploy_id, sha(files['index.html']), body(files['index.html']));
    expect((await put(user.token, deploy_id, sha(files['a.css']), files['a.css'])).statusCode).toBe(200);
    expect((await put(user.token, deploy_id, sha(held), held)).statusCode).toBe(200);
    await other.receiveFile(actor, deploy_id, sha(held), body(held));

    const project = await other.finish(actor, deploy_id, { ip: '127.0.0.1' });
    expect(project.latest?.version).toBe(1);
    const rows = await t.ctx.db
      .selectFrom('deployment_files')
      .innerJoin('deployments', 'deployments.id', 'deployment_files.deployment_id')
      .select(['deployment_files.path', 'deployment_files.sha256', 'deployment_files.size'])
      .where('deployments.project_id', '=', project.project.id)
      .orderBy('deployment_files.path')
      .execute();
    expect(rows).toEqual(
      Object.keys(files)
        .sort()
        .map((p) => ({
          path: p,
          sha256: sha(files[p as keyof typeof files]),
          size: Buffer.byteLength(files[p as keyof typeof files]),
        })),
    );
    // Finished elsewhere: this instance, which began it and still remembers it, says 404.
    expectFailure(
      await put(user.token, deploy_id, sha(files['a.css']), files['a.css']),
      404,
      m.deployNotFound,
    );
    await expect(other.receiveFile(actor, deploy_id, sha(held), body(held))).rejects.toBeInstanceOf(NotFound);
    expect(listTree(path.join(t.dataDir, 'staging'))).toEqual([]);
  });

  it('answers 404 for an unknown deploy or another user’s', async () => {
    const owner = await t.createUser();
    const other = await t.createUser();
    const files = { 'index.html': `<!doctype html><p>${Math.random()}</p>` };
    const { deploy_id, required } = (
      await start(owner.token, { project_name: '别人的部署', files: manifestOf(files) })
    ).json().data;
    expectFailure(await put(other.token, deploy_id, required[0], files['index.html']), 404, m.deployNotFound);
    expectFailure(
      await t.request({ method: 'POST', url: `/api/deploys/${deploy_id}/finish`, token: other.token }),
      404,
    );
    expectFailure(
      await put(owner.token, 'no-such-deploy', required[0], files['index.html']),
      404,
      m.deployNotFound,
    );
    expectFailure(
      await t.request({ method: 'POST', url: '/api/deploys/nope/finish', token: owner.token }),
      404,
    );
    // Another user's project can't be the target either.
    const mine = await deploy(owner.token, { 'index.html': '<p>x</p>' }, { project_name: '目标项目' });
    const id = mine.finished.json().data.project.id;
    expectFailure(await start(other.token, { project_id: id, files: manifestOf(files) }), 404);
    // Nor an admin's session: it sees the project, but only its owner adds versions, so the finish
    // would refuse what the start let it send against the owner's quota (outside review r5).
    const before = await counts();
    const admin = await t.adminToken();
    expectFailure(await start(admin, { project_id: id, files: manifestOf(files) }), 404);
    expectFailure(
      await start(admin, { project_id: id, base_version: 1, base_digest: sha(''), changes: {} }),
      404,
    );
    expect(await counts()).toEqual(before);
  });

  it("counts a deploy as one folder: 25 files at its root pass the 20-item limit, as the web app's folder does", async () => {
    const user = await t.createUser();
    const files: Record<string, string> = { 'index.html': '<!doctype html><p>根目录有很多文件</p>' };
    for (let i = 1; i <= 24; i++) files[`p${i}.html`] = `<!doctype html><p>第 ${i} 页</p>`;
    const { finished } = await deploy(user.token, files, { project_name: '根目录很多文件' });
    expect(finished.statusCode, finished.body).toBe(201);
    const id = finished.json().data.project.id;
    const detail = (await t.request({ url: `/api/projects/${id}`, token: user.token })).json().data.project;
    expect(detail.files).toHaveLength(25);
  });

  it("cancels the actor's own unfinished deploy: its bytes and its place free at once, then 404", async () => {
    const user = await t.createUser();
    const before = await counts();
    const files = { 'index.html': `<!doctype html><p>取消 ${Date.now()} ${Math.random()}</p>` };
    const started = await start(user.token, { project_name: '取消的部署', files: manifestOf(files) });
    const id = started.json().data.deploy_id as string;
    expect((await put(user.token, id, sha(files['index.html']), files['index.html'])).statusCode).toBe(200);
    const other = await t.createUser();
    const cancel = (token: string) => t.request({ method: 'DELETE', url: `/api/deploys/${id}`, token });
    // Another account's deploy is as missing as one that never was.
    expectFailure(await cancel(other.token), 404, m.deployNotFound);
    const res = await cancel(user.token);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().message).toBe(m.deployCancelled);
    expect(await counts()).toEqual(before);
    // Its bytes are no longer held: the storage shown is back to nothing.
    const mine = (await t.request({ url: '/api/projects/my', token: user.token })).json().data;
    expect(mine.storage.used_bytes).toBe(0);
    expectFailure(await cancel(user.token), 404, m.deployNotFound);
    expectFailure(
      await t.request({ method: 'POST', url: `/api/deploys/${id}/finish`, token: user.token }),
      404,
      m.deployNotFound,
    );
  });

  it('applies the upload’s path and type rules to the manifest before a byte is sent', async () => {
    const user = await t.createUser();
    const before = await counts();
    for (const files of [
      { '../escape.html': sha('a') },
      { 'index.html': sha('a'), 'run.exe': sha('b') },
      { 'index.html': 'not-a-hash' },
      {},
    ]) {
      expectFailure(await start(user.token, { project_name: '规则', files }), 400);
    }
    expectFailure(
      await start(user.token, { files: { 'index.html': sha('a') } }),
      400,
      m.deployTargetRequired,
    );
    expectFailure(
      await start(user.token, { project_id: 1, project_name: '两个', files: { 'index.html': sha('a') } }),
      400,
      m.deployTargetRequired,
    );
    // A project_id that is no project number is said to be one, not missing.
    for (const project_id of [1.5, 1e30, 0, -3, '7']) {
      const body = expectFailure(
        await start(user.token, { project_id, files: { 'index.html': sha('a') } }),
        400,
        m.projectIdInvalid,
      );
      expect(body.errors).toEqual({ project_id: m.projectIdInvalid });
    }
    expect(await counts()).toEqual(before);
  });

  it('takes a manifest of 10,000 long paths, past the API’s 1 MiB, and names a manifest past its own limit', async () => {
    const user = await t.createUser();
    const content = sha('同一个页面');
    const files: Record<string, string> = {};
    for (let i = 0; i < 10_000; i++) files[`pages/${'a'.repeat(70)}-${i}.html`] = content;
    const body = JSON.stringify({ project_name: '一万个文件', files });
    expect(Buffer.byteLength(body)).toBeGreaterThan(1024 * 1024);
    const started = await start(user.token, { project_name: '一万个文件', files });
    expect(started.statusCode, started.body.slice(0, 300)).toBe(201);
    expect(started.json().data.required).toEqual([content]);

    const before = await counts();
    const huge = await t.request({
      method: 'POST',
      url: '/api/deploys',
      token: user.token,
      headers: { 'content-type': 'application/json' },
      payload: `{"project_name":"太大","files":{"${'b'.repeat(DEPLOY_MANIFEST_MAX_BYTES)}.html":"${content}"}}`,
    });
    expectFailure(huge, 413, format(m.manifestTooLarge, { size: formatBytes(DEPLOY_MANIFEST_MAX_BYTES) }));
    expect(await counts()).toEqual(before);
  });

  it('refuses at finish what an upload refuses, and leaves nothing behind', async () => {
    const user = await t.createUser();
    const before = await counts();
    const files = { 'index.html': '<!doctype html><p>ok</p>', 'fake.png': `<?php echo ${Math.random()}; ?>` };
    const { finished } = await deploy(user.token, files, { project_name: '伪装文件' });
    expectFailure(finished, 400);
    expect(await t.ctx.store.stat(sha(files['fake.png']))).toBeNull();
    expect(await counts()).toEqual(before);
    const rows = await t.ctx.db.selectFrom('projects').select('id').where('owner_id', '=', user.id).execute();
    expect(rows).toEqual([]);
  });

  it('keeps a running deploy’s blobs from the orphan sweep, and expires it once idle', async () => {
    const user = await t.createUser();
    const files = {
      'index.html': `<!doctype html><p>${Math.random()}</p>`,
      'b.css': `p{width:${Math.random()}px}`,
    };
    const { deploy_id, required } = (
      await start(user.token, { project_name: '过期', files: manifestOf(files) })
    ).json().data;
    const byHash = new Map(Object.values(files).map((c) => [sha(c), c]));
    await put(user.token, deploy_id, required[0], byHash.get(required[0])!);
    const sweep = () =>
      sweepLeftovers({
        db: t.ctx.db,
        ...t.ctx.cluster,
        store: t.ctx.store,
        dataDir: t.dataDir,
        expireDeploys: () => t.ctx.services.deploys.expire(),
      });
    const kept = await sweep();
    expect(kept.deploysExpired).toBe(0);
    expect(await t.ctx.store.stat(required[0])).not.toBeNull();

    // Idle past its time (moved back in time rather than waited for).
    const past = new Date(Date.now() - 61 * 60_000).toISOString();
    await t.ctx.db
      .updateTable('deploys')
      .set({ created_at: past, expires_at: past })
      .where('id', '=', deploy_id)
      .execute();
    const swept = await sweep();
    expect(swept.deploysExpired).toBe(1);
    expect(await t.ctx.store.stat(required[0])).toBeNull();
    expect(await t.ctx.db.selectFrom('deploys').select('id').where('id', '=', deploy_id).execute()).toEqual(
      [],
    );
    expect(
      await t.ctx.db
        .selectFrom('blob_leases')
        .select('sha256')
        .where('upload_id', '=', `deploy:${deploy_id}`)
        .execute(),
    ).toEqual([]);
    expectFailure(
      await put(user.token, deploy_id, required[1], byHash.get(required[1])!),
      404,
      m.deployNotFound,
    );
  });

  it('works with an API token', async () => {
    const user = await t.createUser();
    const created = await t.request({
      method: 'POST',
      url: '/api/auth/tokens',
      token: user.token,
      body: { name: 'ci' },
    });
    const token = created.json().data.token as string;
    const { finished } = await deploy(
      token,
      { 'index.html': `<p>${Math.random()}</p>` },
      { project_name: '令牌部署' },
    );
    expect(finished.statusCode, finished.body).toBe(201);
  });
});
