/**
 * Base-version deploys (docs/decisions/deploys.md "Base-version deploys"): a client names the
 * version its folder was deployed as, with the digest of that version's manifest, and sends only
 * the changes; the server composes the new version from the base's rows. A change, an addition and
 * a removal make exactly the folder's files, and only new contents are required; a wrong digest,
 * a missing base, another project's base or a removal of a path the base lacks is refused (409,
 * field `base_version`) with nothing opened; another account's content is still required; a base
 * gone before the finish refuses it and keeps nothing; an unchanged set answers as unchanged.
 */
import { createHash } from 'node:crypto';
import { canonicalManifest, DEFAULT_LIMITS, format, messages } from '@sitehall/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../src/domain/actor.js';
import { Conflict } from '../src/domain/errors.js';
import type { NewDeploymentFile } from '../src/repositories/deployment-files.js';
import { createDeploysRepository } from '../src/repositories/deploys.js';
import { createTestApp, expectFailure, type TestApp } from './helpers.js';
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
const manifestOf = (files: Record<string, string>) =>
  Object.fromEntries(Object.entries(files).map(([p, c]) => [p, sha(c)]));
const digestOf = (files: Record<string, string>) => sha(canonicalManifest(Object.entries(manifestOf(files))));

function site(unique: string): Record<string, string> {
  return {
    'index.html': `<!doctype html><html><head><link rel="stylesheet" href="css/a.css"></head><body>${unique}</body></html>`,
    'css/a.css': `body { content: "${unique}"; }`,
    'about/index.html': `<!doctype html><html><body>关于 ${unique}</body></html>`,
    'old.html': `<!doctype html><p>旧页面 ${unique}</p>`,
  };
}

async function start(token: string, body: Record<string, unknown>) {
  return t.request({ method: 'POST', url: '/api/deploys', token, body });
}

async function put(token: string, deployId: string, content: string) {
  return t.request({
    method: 'PUT',
    url: `/api/deploys/${deployId}/files/${sha(content)}`,
    token,
    payload: Buffer.from(content),
    headers: { 'content-type': 'application/octet-stream' },
  });
}

function finish(token: string, deployId: string) {
  return t.request({ method: 'POST', url: `/api/deploys/${deployId}/finish`, token });
}

/** A full-manifest deploy of `files` (every content sent); the project's id. */
async function deployFull(token: string, files: Record<string, string>, target: Record<string, unknown>) {
  const started = await start(token, { ...target, files: manifestOf(files) });
  expect(started.statusCode, started.body).toBe(201);
  const { deploy_id, required } = started.json().data as { deploy_id: string; required: string[] };
  const byHash = new Map(Object.values(files).map((c) => [sha(c), c]));
  for (const h of required) expect((await put(token, deploy_id, byHash.get(h)!)).statusCode).toBe(200);
  const finished = await finish(token, deploy_id);
  expect(finished.statusCode, finished.body).toBe(201);
  return finished.json().data.project.id as number;
}

async function filesOfVersion(projectId: number, version: number) {
  const rows = await t.ctx.db
    .selectFrom('deployment_files')
    .innerJoin('deployments', 'deployments.id', 'deployment_files.deployment_id')
    .select(['deployment_files.path', 'deployment_files.sha256'])
    .where('deployments.project_id', '=', projectId)
    .where('deployments.version', '=', version)
    .execute();
  return Object.fromEntries(rows.map((r) => [r.path, r.sha256]));
}

async function counts() {
  const n = async (table: 'deploys' | 'blob_leases' | 'deployments') =>
    Number(
      (
        await t.ctx.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return { deploys: await n('deploys'), leases: await n('blob_leases'), versions: await n('deployments') };
}

describe('base-version deploys', () => {
  it('changes one file, adds one and removes one: the version is the folder, only new contents are required', async () => {
    const user = await t.createUser();
    const unique = `${Date.now()}-${Math.random()}`;
    const v1 = site(unique);
    const projectId = await deployFull(user.token, v1, { project_name: '基准部署' });
    const v2 = { ...v1 };
    v2['about/index.html'] = `<!doctype html><html><body>关于我们 ${unique}</body></html>`;
    v2['js/new.js'] = `console.log("${unique}");`;
    // A file copied from another path: its content is in the base, nothing to send.
    v2['copy.css'] = v1['css/a.css']!;
    delete v2['old.html'];
    const started = await start(user.token, {
      project_id: projectId,
      base_version: 1,
      base_digest: digestOf(v1),
      changes: {
        'about/index.html': sha(v2['about/index.html']),
        'js/new.js': sha(v2['js/new.js']),
        'copy.css': sha(v1['css/a.css']!),
        'old.html': null,
      },
    });
    expect(started.statusCode, started.body).toBe(201);
    const { deploy_id, required } = started.json().data as { deploy_id: string; required: string[] };
    expect(required.sort()).toEqual([sha(v2['about/index.html']), sha(v2['js/new.js'])].sort());
    // The deploy leased only the contents it may receive, not the base's.
    const leased = await t.ctx.db
      .selectFrom('blob_leases')
      .select('sha256')
      .where('upload_id', '=', `deploy:${deploy_id}`)
      .execute();
    expect(leased.map((r) => r.sha256).sort()).toEqual(required.slice().sort());
    for (const c of [v2['about/index.html'], v2['js/new.js']])
      expect((await put(user.token, deploy_id, c)).statusCode).toBe(200);
    const finished = await finish(user.token, deploy_id);
    expect(finished.statusCode, finished.body).toBe(201);
    expect(finished.json().data.project.latest_version).toBe(2);
    expect(await filesOfVersion(projectId, 2)).toEqual(manifestOf(v2));
    const version = await t.ctx.db
      .selectFrom('deployments')
      .select(['file_count', 'total_size', 'upload_source'])
      .where('project_id', '=', projectId)
      .where('version', '=', 2)
      .executeTakeFirstOrThrow();
    expect(version).toMatchObject({
      file_count: 5,
      total_size: Object.values(v2).reduce((s, c) => s + Buffer.byteLength(c), 0),
      upload_source: 'deploy',
    });
    // Its leases are gone with it.
    const left = await t.ctx.db
      .selectFrom('blob_leases')
      .select('sha256')
      .where('upload_id', 'like', `deploy:${deploy_id}%`)
      .execute();
    expect(left).toEqual([]);
  });

  it('refuses a wrong digest, a missing base, another project’s base or a removal the base lacks: 409, nothing opened', async () => {
    const user = await t.createUser();
    const unique = `${Date.now()}-${Math.random()}`;
    const v1 = site(unique);
    const projectId = await deployFull(user.token, v1, { project_name: '基准拒绝' });
    const otherFiles = { 'index.html': `<!doctype html><p>另一个 ${unique}</p>` };
    const otherId = await deployFull(user.token, otherFiles, { project_name: '另一个项目' });
    const changes = { 'index.html': sha(`<!doctype html><p>新 ${unique}</p>`) };
    const before = await counts();
    const refused = async (body: Record<string, unknown>, message: string) => {
      const res = await start(user.token, { project_id: projectId, changes, ...body });
      expectFailure(res, 409, message);
      expect(res.json().errors).toEqual({ base_version: message });
    };
    const mismatch = (version: number) => format(m.baseMismatch, { version });
    // The digest of another manifest (a stale or corrupt record).
    await refused({ base_version: 1, base_digest: digestOf({ ...v1, 'x.html': 'x' }) }, mismatch(1));
    // No such version.
    await refused({ base_version: 7, base_digest: digestOf(v1) }, mismatch(7));
    // Another project's version 1, with its own true digest: not this project's version 1.
    await refused({ base_version: 1, base_digest: digestOf(otherFiles) }, mismatch(1));
    // A removal of a path the base does not have.
    await refused(
      { base_version: 1, base_digest: digestOf(v1), changes: { 'gone.html': null } },
      format(m.baseRemovedMissing, { path: 'gone.html', version: 1 }),
    );
    expect(await counts()).toEqual(before);
    // The other project is untouched, and a base needs a project; files and a base don't mix.
    expect(await filesOfVersion(otherId, 1)).toEqual(manifestOf(otherFiles));
    const noProject = await start(user.token, {
      project_name: '新项目',
      base_version: 1,
      base_digest: digestOf(v1),
      changes,
    });
    expect(noProject.statusCode).toBe(400);
    expect(noProject.json().errors.base_version).toBe(m.baseNeedsProject);
    const both = await start(user.token, {
      project_id: projectId,
      files: manifestOf(v1),
      base_version: 1,
      base_digest: digestOf(v1),
      changes,
    });
    expect(both.statusCode).toBe(400);
    expect(both.json().errors.files).toBe(m.manifestOrBase);
  });

  it('still requires a content another account holds, named in the changes', async () => {
    const owner = await t.createUser();
    const stranger = await t.createUser();
    const unique = `${Date.now()}-${Math.random()}`;
    const secret = `<!doctype html><p>别人的文件 ${unique}</p>`;
    await deployFull(stranger.token, { 'index.html': secret }, { project_name: '别人的项目' });
    const v1 = site(unique);
    const projectId = await deployFull(owner.token, v1, { project_name: '我的项目' });
    const started = await start(owner.token, {
      project_id: projectId,
      base_version: 1,
      base_digest: digestOf(v1),
      changes: { 'taken.html': sha(secret) },
    });
    expect(started.statusCode, started.body).toBe(201);
    const { deploy_id, required } = started.json().data as { deploy_id: string; required: string[] };
    expect(required).toEqual([sha(secret)]);
    // Not taken by its hash: the finish wants the bytes.
    expectFailure(await finish(owner.token, deploy_id), 400, format(m.filesMissing, { n: 1 }));
    expect((await put(owner.token, deploy_id, secret)).statusCode).toBe(200);
    expect((await finish(owner.token, deploy_id)).statusCode).toBe(201);
    expect(await filesOfVersion(projectId, 2)).toEqual({ ...manifestOf(v1), 'taken.html': sha(secret) });
  });

  it('refuses the finish when the base went while the deploy was open, and keeps nothing', async () => {
    const user = await t.createUser();
    const unique = `${Date.now()}-${Math.random()}`;
    const v1 = site(unique);
    const projectId = await deployFull(user.token, v1, { project_name: '基准被删' });
    const v2 = { ...v1, 'index.html': `<!doctype html><p>第二版 ${unique}</p>` };
    await deployFull(user.token, v2, { project_id: projectId });
    const added = `<!doctype html><p>新页面 ${unique}</p>`;
    const started = await start(user.token, {
      project_id: projectId,
      base_version: 1,
      base_digest: digestOf(v1),
      changes: { 'new.html': sha(added) },
    });
    expect(started.statusCode, started.body).toBe(201);
    const { deploy_id, required } = started.json().data as { deploy_id: string; required: string[] };
    expect(required).toEqual([sha(added)]);
    expect((await put(user.token, deploy_id, added)).statusCode).toBe(200);
    // Version 1's rows go (as with its project's deletion) between the start and the finish.
    await t.ctx.db
      .deleteFrom('deployments')
      .where('project_id', '=', projectId)
      .where('version', '=', 1)
      .execute();
    const versionsBefore = (await counts()).versions;
    const res = await finish(user.token, deploy_id);
    expectFailure(res, 409, format(m.baseGone, { version: 1 }));
    expect(res.json().errors).toEqual({ base_version: format(m.baseGone, { version: 1 }) });
    const after = await counts();
    expect(after.versions).toBe(versionsBefore);
    const row = await t.ctx.db.selectFrom('deploys').select('id').where('id', '=', deploy_id).execute();
    expect(row).toEqual([]);
    const leases = await t.ctx.db
      .selectFrom('blob_leases')
      .select('sha256')
      .where('upload_id', 'like', `deploy:${deploy_id}%`)
      .execute();
    expect(leases).toEqual([]);
    // What it uploaded, referenced by nothing, left the store.
    expect(await t.ctx.store.stat(sha(added))).toBeNull();
  });

  it('finishes on an instance that did not begin it, from the base’s rows; refused there once the base is gone', async () => {
    // Another instance over the same database and store, which knows the deploys only by their rows.
    const other = () => deployServiceBeside(t);
    const user = await t.createUser();
    const actor: Actor = { id: user.id, username: user.username, role: 'user', via: 'token', sessionId: 0 };
    const unique = `${Date.now()}-${Math.random()}`;
    const v1 = site(unique);
    const projectId = await deployFull(user.token, v1, { project_name: '基准跨实例' });
    const baseDeploy = async (name: string, content: string) => {
      const started = await start(user.token, {
        project_id: projectId,
        base_version: 1,
        base_digest: digestOf(v1),
        changes: { [name]: sha(content), 'old.html': null },
      });
      expect(started.statusCode, started.body).toBe(201);
      const { deploy_id } = started.json().data as { deploy_id: string };
      expect((await put(user.token, deploy_id, content)).statusCode).toBe(200);
      return deploy_id;
    };
    const first = await baseDeploy('x.html', `<!doctype html><p>X ${unique}</p>`);
    const done = await other().finish(actor, first, { ip: '127.0.0.1' });
    expect(done.latest?.version).toBe(2);
    const { 'old.html': _old, ...kept } = v1;
    expect(await filesOfVersion(projectId, 2)).toEqual({
      ...manifestOf(kept),
      'x.html': sha(`<!doctype html><p>X ${unique}</p>`),
    });

    const added = `<!doctype html><p>Y ${unique}</p>`;
    const second = await baseDeploy('y.html', added);
    await t.ctx.db
      .deleteFrom('deployments')
      .where('project_id', '=', projectId)
      .where('version', '=', 1)
      .execute();
    const refused = other().finish(actor, second, { ip: '127.0.0.1' });
    await expect(refused).rejects.toBeInstanceOf(Conflict);
    await expect(refused).rejects.toThrow(format(m.baseGone, { version: 1 }));
    expect(await t.ctx.db.selectFrom('deploys').select('id').where('id', '=', second).execute()).toEqual([]);
    expect(await t.ctx.store.stat(sha(added))).toBeNull();
    expect(await filesOfVersion(projectId, 3)).toEqual({});
  });

  it('composes on the rows an instance kept from its own commit exactly as on rows read back from the database', async () => {
    const other = deployServiceBeside(t);
    const user = await t.createUser();
    const actor: Actor = { id: user.id, username: user.username, role: 'user', via: 'token', sessionId: 0 };
    const unique = `${Date.now()}-${Math.random()}`;
    const v1 = site(unique);
    const projectId = await deployFull(user.token, v1, { project_name: '基准保留' });
    const baseDeploy = async (body: Record<string, unknown>, content: string) => {
      const started = await start(user.token, body);
      expect(started.statusCode, started.body).toBe(201);
      const { deploy_id } = started.json().data as { deploy_id: string };
      expect((await put(user.token, deploy_id, content)).statusCode).toBe(200);
      const finished = await finish(user.token, deploy_id);
      expect(finished.statusCode, finished.body).toBe(201);
      return finished.json().data.project.latest_version as number;
    };
    // Version 2 on version 1, finished here: this instance keeps its rows.
    const x = `<!doctype html><p>X ${unique}</p>`;
    const v2: Record<string, string> = { ...v1, 'x.html': x };
    const onV1 = { project_id: projectId, base_version: 1, base_digest: digestOf(v1) };
    expect(await baseDeploy({ ...onV1, changes: { 'x.html': sha(x) } }, x)).toBe(2);
    // Version 3 on version 2, begun here on the kept rows.
    const y = `<!doctype html><p>Y ${unique}</p>`;
    const onV2 = {
      project_id: projectId,
      base_version: 2,
      base_digest: digestOf(v2),
      changes: { 'y.html': sha(y), 'old.html': null },
    };
    expect(await baseDeploy(onV2, y)).toBe(3);
    const v3: Record<string, string> = { ...v2, 'y.html': y };
    delete v3['old.html'];
    expect(await filesOfVersion(projectId, 3)).toEqual(manifestOf(v3));
    // The same start on an instance that reads version 2's rows from the database composes the
    // same files: version 3 again, so nothing is opened.
    await expect(other.start(actor, onV2)).resolves.toMatchObject({ deploy_id: null, unchanged_version: 3 });
    // A digest that is not the kept version's is refused as one that is not the stored version's.
    const wrong = { ...onV2, base_digest: digestOf(v1) };
    const mismatch = format(m.baseMismatch, { version: 2 });
    const refused = await start(user.token, wrong);
    expectFailure(refused, 409, mismatch);
    expect(refused.json().errors).toEqual({ base_version: mismatch });
    await expect(other.start(actor, wrong)).rejects.toThrow(mismatch);
  });

  it('answers unchanged when the composed files are the newest version’s', async () => {
    const user = await t.createUser();
    const unique = `${Date.now()}-${Math.random()}`;
    const v1 = site(unique);
    const projectId = await deployFull(user.token, v1, { project_name: '基准未变' });
    const before = await counts();
    const same = await start(user.token, {
      project_id: projectId,
      base_version: 1,
      base_digest: digestOf(v1),
      // A change that keeps a path's content changes nothing.
      changes: { 'css/a.css': sha(v1['css/a.css']!) },
    });
    expect(same.statusCode, same.body).toBe(201);
    expect(same.json()).toMatchObject({
      message: format(m.deployUnchanged, { version: 1 }),
      data: { deploy_id: null, required: [], unchanged_version: 1 },
    });
    // On an older base, the changes that make the newest version again: unchanged too.
    const v2 = { ...v1, 'index.html': `<!doctype html><p>第二版 ${unique}</p>` };
    await deployFull(user.token, v2, { project_id: projectId });
    const onOld = await start(user.token, {
      project_id: projectId,
      base_version: 1,
      base_digest: digestOf(v1),
      changes: { 'index.html': sha(v2['index.html']) },
    });
    expect(onOld.json().data).toMatchObject({ deploy_id: null, unchanged_version: 2 });
    const after = await counts();
    expect(after.deploys).toBe(before.deploys);
    expect(after.versions).toBe(before.versions + 1);
  });
  /** The version's rows as insertMany and INSERT … SELECT leave them, every column the serving reads. */
  async function rowsOfVersion(projectId: number, version: number) {
    const rows = await t.ctx.db
      .selectFrom('deployment_files')
      .innerJoin('deployments', 'deployments.id', 'deployment_files.deployment_id')
      .select([
        'deployment_files.path',
        'deployment_files.sha256',
        'deployment_files.size',
        'deployment_files.mime_type',
        'deployment_files.extension',
        'deployment_files.download_only',
      ])
      .where('deployments.project_id', '=', projectId)
      .where('deployments.version', '=', version)
      .orderBy('deployment_files.path')
      .execute();
    return rows.map((r) => ({ ...r, size: Number(r.size), download_only: Number(r.download_only) }));
  }

  /** Runs `work` counting the rows the pipeline writes from its result (insertMany), not copied. */
  async function rowsWritten(work: () => Promise<void>): Promise<string[]> {
    const repos = t.ctx.repositories;
    const original = repos.deploymentFiles;
    const written: string[] = [];
    repos.deploymentFiles = {
      ...original,
      insertMany: (trx, id, files: readonly NewDeploymentFile[], dialect) => {
        written.push(...files.map((f) => f.path));
        return original.insertMany(trx, id, files, dialect);
      },
    };
    try {
      await work();
    } finally {
      repos.deploymentFiles = original;
    }
    return written;
  }

  it('writes the rows of what changed and copies the base’s others, every column as a full deploy has it', async () => {
    const user = await t.createUser();
    const unique = `${Date.now()}-${Math.random()}`;
    const v1 = site(unique);
    const projectId = await deployFull(user.token, v1, { project_name: '基准复制行' });
    const v2: Record<string, string> = { ...v1, 'css/a.css': `body { color: red; content: "${unique}"; }` };
    delete v2['old.html'];
    const written = await rowsWritten(async () => {
      const started = await start(user.token, {
        project_id: projectId,
        base_version: 1,
        base_digest: digestOf(v1),
        changes: { 'css/a.css': sha(v2['css/a.css']!), 'old.html': null },
      });
      expect(started.statusCode, started.body).toBe(201);
      const { deploy_id } = started.json().data as { deploy_id: string };
      expect((await put(user.token, deploy_id, v2['css/a.css']!)).statusCode).toBe(200);
      const finished = await finish(user.token, deploy_id);
      expect(finished.statusCode, finished.body).toBe(201);
    });
    // One row from the pipeline's result (the changed file); the two unchanged ones copied.
    expect(written).toEqual(['css/a.css']);
    // The same rows a whole-manifest deploy of the folder writes.
    await deployFull(user.token, { ...v2, 'extra.html': '<p>x</p>' }, { project_id: projectId });
    await deployFull(user.token, v2, { project_id: projectId });
    expect(await rowsOfVersion(projectId, 2)).toEqual(await rowsOfVersion(projectId, 4));
    expect((await rowsOfVersion(projectId, 2)).map((r) => r.path)).toEqual([
      'about/index.html',
      'css/a.css',
      'index.html',
    ]);
  });

  it('writes the rows the settings of the moment decide, not the base’s, when those changed', async () => {
    const user = await t.createUser();
    const unique = `${Date.now()}-${Math.random()}`;
    const v1 = { ...site(unique), 'data/a.csv': `a,b\n1,${unique}\n` };
    const projectId = await deployFull(user.token, v1, { project_name: '基准设置变更' });
    expect((await rowsOfVersion(projectId, 1)).find((r) => r.path === 'data/a.csv')?.download_only).toBe(0);
    const admin = await t.adminToken();
    const config = async (allowed: readonly string[]) =>
      expect(
        (
          await t.request({
            method: 'PUT',
            url: '/api/admin/config',
            token: admin,
            body: { allowed_extensions: allowed, unknown_file_types: 'download' },
          })
        ).statusCode,
      ).toBe(200);
    // CSV no longer web content: served as a download from the next version on.
    await config(DEFAULT_LIMITS.allowedExtensions.filter((e) => e !== 'csv'));
    try {
      const v2 = { ...v1, 'index.html': `<!doctype html><p>第二版 ${unique}</p>` };
      const started = await start(user.token, {
        project_id: projectId,
        base_version: 1,
        base_digest: digestOf(v1),
        changes: { 'index.html': sha(v2['index.html']) },
      });
      const { deploy_id } = started.json().data as { deploy_id: string };
      expect((await put(user.token, deploy_id, v2['index.html'])).statusCode).toBe(200);
      expect((await finish(user.token, deploy_id)).statusCode).toBe(201);
      const csv = (await rowsOfVersion(projectId, 2)).find((r) => r.path === 'data/a.csv');
      expect(csv).toMatchObject({ download_only: 1, mime_type: 'application/octet-stream' });
      expect((await rowsOfVersion(projectId, 2)).length).toBe(Object.keys(v2).length);
    } finally {
      await config(DEFAULT_LIMITS.allowedExtensions);
    }
  });

  it('reads a base’s files in path order, whatever order their rows were written in', async () => {
    const user = await t.createUser();
    const projectId = await deployFull(user.token, site(`${Date.now()}-order`), { project_name: '基准顺序' });
    const version = await t.ctx.db
      .selectFrom('deployments')
      .select('id')
      .where('project_id', '=', projectId)
      .where('version', '=', 1)
      .executeTakeFirstOrThrow();
    // The rows written again, the last path first: the order a table scan meets them in.
    const rows = await t.ctx.db
      .selectFrom('deployment_files')
      .select(['deployment_id', 'path', 'size', 'mime_type', 'extension', 'sha256', 'download_only'])
      .where('deployment_id', '=', version.id)
      .execute();
    await t.ctx.db.deleteFrom('deployment_files').where('deployment_id', '=', version.id).execute();
    for (const row of [...rows].sort((a, b) => (a.path < b.path ? 1 : -1)))
      await t.ctx.db.insertInto('deployment_files').values(row).execute();
    const base = await createDeploysRepository(t.database.dialect).versionWithFiles(t.ctx.db, projectId, 1);
    expect(base?.files.map((f) => f.path)).toEqual([
      'about/index.html',
      'css/a.css',
      'index.html',
      'old.html',
    ]);
  });
});
