/**
 * A committed delete tells the truth (docs/decisions/uploads.md "A committed delete answers success"): the
 * rows are gone, so the answer is a success even when the store can't remove the blobs now (they
 * are the orphan sweep's); a repeat of the same delete by the same account (a retry whose answer
 * was lost) is a success too, while anyone else still gets 404; the project's render jobs go with
 * it, and the sweep removes jobs of versions deleted any other way. Both engines.
 */
import { messages } from '@sitehall/contracts';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { blobLeasesOn } from '../src/context.js';
import { runHere } from '../src/jobs/job-runner.js';
import { sweepLeftovers } from '../src/jobs/sweep.js';
import * as deploymentFiles from '../src/repositories/deployment-files.js';
import { BlobGate } from '../src/storage/blob-gate.js';
import { LocalBlobStore, StorageUnavailable } from '../src/storage/index.js';
import { auditEntries, createTestApp, expectFailure, type TestApp, uploadProject } from './helpers.js';
import { FaultyBlobStore } from './support/faulty-blob-store.js';

/** A store whose deletes fail as an unreachable bucket's do, while `away` is set. */
class AwayOnDelete extends FaultyBlobStore {
  away = false;
  override async delete(sha256: string) {
    if (this.away) throw new StorageUnavailable();
    return super.delete(sha256);
  }
}

let t: TestApp;
let store: AwayOnDelete;
beforeEach(async () => {
  t = await createTestApp(
    {},
    {
      store: (config) => {
        store = new AwayOnDelete(LocalBlobStore.inDataDir(config.dataDir));
        return store;
      },
    },
  );
});
afterEach(() => t.close());

const SITE = [{ name: 'index.html', content: '<!doctype html><h1>删除</h1>' }];

async function storedBlobs(): Promise<string[]> {
  const all: string[] = [];
  for await (const h of store.list()) all.push(h);
  return all;
}

function sweep() {
  const { leases } = t.ctx.cluster;
  const gate = new BlobGate({
    leases: blobLeasesOn(t.ctx.db, leases),
    store,
    unreferenced: (hashes, trx) => deploymentFiles.unreferenced(trx, hashes),
  });
  return sweepLeftovers({
    db: t.ctx.db,
    leases,
    gate,
    jobs: runHere,
    shared: false,
    store,
    dataDir: t.dataDir,
    dropRenderJobs: () => t.ctx.repositories.renderJobs.dropOfDeleted(t.ctx.db),
  });
}

describe('a committed delete', () => {
  it('answers success when its blobs cannot be removed now; the sweep removes them later', async () => {
    const owner = await t.createUser();
    const up = await uploadProject(t, owner.token, { name: '删除测试', files: SITE });
    expect(up.statusCode).toBe(201);
    const id = up.json().data.project.id as number;
    expect(await t.ctx.repositories.renderJobs.byDeployment(t.ctx.db, 1)).toBeDefined();
    expect(await storedBlobs()).toHaveLength(1);

    store.away = true;
    const res = await t.request({ method: 'DELETE', url: `/api/projects/${id}`, token: owner.token });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ success: true, message: messages.project.deleted });
    expect(await t.ctx.repositories.projects.byId(t.ctx.db, id)).toBeUndefined();
    // Its render job went with it, in the same transaction.
    expect(await t.ctx.db.selectFrom('render_jobs').selectAll().execute()).toEqual([]);
    // The blob stayed (the store was away), and is the sweep's once the store answers.
    expect(await storedBlobs()).toHaveLength(1);
    store.away = false;
    expect((await sweep()).blobsRemoved).toBe(1);
    expect(await storedBlobs()).toEqual([]);
  });

  it('repeated by the same account is a success (a retry); anyone else still gets 404', async () => {
    const owner = await t.createUser();
    const other = await t.createUser();
    const up = await uploadProject(t, owner.token, { name: '重复删除', files: SITE });
    const id = up.json().data.project.id as number;
    const del = (token: string) => t.request({ method: 'DELETE', url: `/api/projects/${id}`, token });
    expect((await del(owner.token)).statusCode).toBe(200);
    const again = await del(owner.token);
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toMatchObject({ success: true, message: messages.project.deleted });
    expectFailure(await del(other.token), 404, messages.project.notFound);
    // One audit entry: the repeat changed nothing.
    const entries = await t.ctx.db
      .selectFrom('audit_logs')
      .select('id')
      .where('action', '=', 'project.delete')
      .execute();
    expect(entries).toHaveLength(1);
    // A project that never existed is still a 404.
    expectFailure(
      await t.request({ method: 'DELETE', url: `/api/projects/${id + 100}`, token: owner.token }),
      404,
      messages.project.notFound,
    );
  });

  it('the sweep removes render jobs whose version is gone (an account deleted, say)', async () => {
    const owner = await t.createUser();
    await uploadProject(t, owner.token, { name: '保留', files: SITE });
    // A job left by a version deleted without the project service (e.g. with its account).
    await t.ctx.db
      .insertInto('render_jobs')
      .values({
        deployment_id: 9999,
        project_id: 9999,
        status: 'failed',
        attempts: 3,
        error: 'x',
        run_after: new Date().toISOString(),
        created_at: new Date().toISOString(),
        updated_at: new Date().toISOString(),
      })
      .execute();
    await sweep();
    const left = await t.ctx.db.selectFrom('render_jobs').select('deployment_id').execute();
    expect(left.map((r) => Number(r.deployment_id))).toEqual([1]);
  });
});

describe('an edit crossing the delete', () => {
  const projectEntries = async (id: number) =>
    (await auditEntries(t, { targetId: id })).filter((e) => e.target_type === 'project');

  /**
   * Sends the edit; once it has read the project (its access check), the owner deletes the
   * project, and then the edit goes on: the moment PostgreSQL's side-by-side requests hit.
   */
  async function editDeletedMeanwhile(body: Record<string, unknown>) {
    const owner = await t.createUser();
    const up = await uploadProject(t, owner.token, { name: '编辑时删除', files: SITE });
    const id = up.json().data.project.id as number;
    const projects = t.ctx.repositories.projects;
    const byId = projects.byId.bind(projects);
    let armed = true;
    const read = vi.spyOn(projects, 'byId').mockImplementation(async (db, projectId) => {
      const row = await byId(db, projectId);
      if (armed && projectId === id) {
        armed = false;
        const del = await t.request({ method: 'DELETE', url: `/api/projects/${id}`, token: owner.token });
        expect(del.statusCode, del.body).toBe(200);
      }
      return row;
    });
    try {
      const res = await t.request({ method: 'PUT', url: `/api/projects/${id}`, token: owner.token, body });
      return { res, id };
    } finally {
      read.mockRestore();
    }
  }

  it('answers 404 to an edit of a project deleted meanwhile, and audits no edit', async () => {
    const { res, id } = await editDeletedMeanwhile({ description: '删除后才保存' });
    expectFailure(res, 404, messages.project.notFound);
    expect((await projectEntries(id)).map((e) => e.action)).toEqual(['project.upload', 'project.delete']);
  });

  it('answers 404 to a rename of a project deleted meanwhile, and claims no name', async () => {
    const { res, id } = await editDeletedMeanwhile({ site_name: 'deleted-meanwhile' });
    expectFailure(res, 404, messages.project.notFound);
    expect((await projectEntries(id)).map((e) => e.action)).toEqual(['project.upload', 'project.delete']);
    const names = await t.ctx.db
      .selectFrom('site_names')
      .selectAll()
      .where('name', '=', 'deleted-meanwhile')
      .execute();
    expect(names).toEqual([]);
  });
});

describe('an upload whose project is deleted as it answers', () => {
  /**
   * Uploads; once the upload is committed (its audit entry is written after the commit), the
   * project is deleted before the answer is read back: the owner's other tab, say.
   */
  async function uploadDeletedAtOnce(token: string, opts: Parameters<typeof uploadProject>[2]) {
    const audit = t.ctx.services.audit;
    const record = audit.record.bind(audit);
    let armed = true;
    const spy = vi.spyOn(audit, 'record').mockImplementation(async (entry, trx) => {
      await record(entry, trx);
      if (armed && (entry.action === 'project.upload' || entry.action === 'project.new_version')) {
        armed = false;
        const del = await t.request({ method: 'DELETE', url: `/api/projects/${entry.targetId}`, token });
        expect(del.statusCode, del.body).toBe(200);
      }
    });
    try {
      return await uploadProject(t, token, opts);
    } finally {
      spy.mockRestore();
    }
  }

  it('answers 404 to a new project or a new version deleted right after its commit, never 500', async () => {
    const owner = await t.createUser();
    expectFailure(
      await uploadDeletedAtOnce(owner.token, { name: '传完即删', files: SITE }),
      404,
      messages.project.notFound,
    );
    const up = await uploadProject(t, owner.token, { name: '新版本传完即删', files: SITE });
    const id = up.json().data.project.id as number;
    expectFailure(
      await uploadDeletedAtOnce(owner.token, {
        projectId: id,
        files: [{ name: 'index.html', content: '<p>2</p>' }],
      }),
      404,
      messages.project.notFound,
    );
    expect(
      await t.ctx.db.selectFrom('projects').select('id').where('owner_id', '=', owner.id).execute(),
    ).toEqual([]);
  });
});
