/**
 * A takedown is a state of its own (已下线, docs/decisions/honest-states.md "Taken down is a state of its own"):
 * the owner reads that the site was taken offline and why, admins filter and count takedowns apart
 * from rejections, the audit log records the new state, and migration 015 turns the takedowns
 * stored as rejections before it into taken_down while real rejections stay rejected.
 */
import { STATUS_LABELS } from '@sitehall/contracts';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  acrossMigration,
  auditEntries,
  createTestApp,
  insertOldUser,
  liveProject,
  review,
  type TestApp,
  uploadProject,
} from './helpers.js';

describe('a takedown', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('is 已下线 with its reason for the owner, its own filter and tab, and in the audit log', async () => {
    const { id, owner } = await liveProject(t, undefined, { name: '被下线的站点' });
    const refused = await uploadProject(t, owner.token, {
      name: '被拒绝的站点',
      files: [{ name: 'index.html', content: 'x' }],
    });
    const refusedId = refused.json().data.project.id as number;
    expect((await review(t, refusedId, 'reject', '内容不完整')).statusCode).toBe(200);

    const res = await review(t, id, 'takedown', '含有违规内容');
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.project).toMatchObject({
      status: 'taken_down',
      takedownReason: '含有违规内容',
      rejectionReason: null,
      is_live: false,
    });
    expect(STATUS_LABELS.taken_down).toBe('已下线');

    const mine = await t.request({ url: `/api/projects/${id}`, token: owner.token });
    expect(mine.json().data.project).toMatchObject({ status: 'taken_down', takedownReason: '含有违规内容' });

    // The owner's filters: taken down is not rejected, and the counters say how many.
    const list = async (status: string) =>
      (await t.request({ url: `/api/projects/my?status=${status}`, token: owner.token })).json().data;
    expect((await list('taken_down')).projects.map((p: { id: number }) => p.id)).toEqual([id]);
    expect((await list('rejected')).projects.map((p: { id: number }) => p.id)).toEqual([refusedId]);
    expect((await list('all')).stats).toMatchObject({ total: 2, reviewed: 2, published: 0, taken_down: 1 });

    // The admin's tab and count.
    const admin = await t.adminToken();
    const tab = (
      await t.request({ url: '/api/admin/projects?status=taken_down&page_size=100', token: admin })
    ).json().data;
    expect(tab.projects.map((p: { id: number }) => p.id)).toEqual([id]);
    expect(tab.counts.taken_down).toBe(1);
    const stats = (await t.request({ url: '/api/admin/stats', token: admin })).json().data;
    expect(stats.projects.taken_down).toBe(1);

    const [entry] = await auditEntries(t, { action: 'review.takedown', targetId: id });
    expect(JSON.parse(entry!.detail!)).toMatchObject({
      from: 'approved',
      to: 'taken_down',
      comment: '含有违规内容',
    });

    // A new upload goes back to review.
    const again = await uploadProject(t, owner.token, {
      projectId: id,
      files: [{ name: 'index.html', content: '<p>修改后</p>' }],
    });
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json().data.project).toMatchObject({ status: 'pending', takedownReason: null });

    // The version history says which version was taken down, and a later rejection is a rejection.
    expect((await review(t, id, 'reject', '仍不合规')).statusCode).toBe(200);
    const versions = (await t.request({ url: `/api/projects/${id}`, token: owner.token })).json().data.project
      .deployments as Array<{ version: number; status: string; taken_down: boolean }>;
    expect(versions.map((v) => [v.version, v.status, v.taken_down])).toEqual([
      [2, 'rejected', false],
      [1, 'rejected', true],
    ]);
    const refusedVersions = (
      await t.request({ url: `/api/projects/${refusedId}`, token: owner.token })
    ).json().data.project.deployments as Array<{ taken_down: boolean }>;
    expect(refusedVersions.map((v) => v.taken_down)).toEqual([false]);
  });
});

describe('migration 015', () => {
  it('turns stored takedowns into taken_down and keeps rejections, versions and the showcase triggers', async () => {
    let ids: { takenDown: number; rejected: number; rejectedAfterTakedown: number } | undefined;
    await acrossMigration(
      '014_upload_keys',
      async (db) => {
        const ownerId = await insertOldUser(db);
        const at = new Date().toISOString();
        const project = async (name: string, actions: string[]) => {
          const p = await db
            .insertInto('projects')
            .values({
              owner_id: ownerId,
              name,
              description: null,
              status: 'rejected',
              is_public: 1,
              view_count: 3,
              download_count: 0,
              created_at: at,
              updated_at: at,
              search_text: name,
              name_sort_key: name,
            })
            .returning('id')
            .executeTakeFirstOrThrow();
          const d = await db
            .insertInto('deployments')
            .values({
              project_id: p.id,
              version: 1,
              status: 'rejected',
              upload_type: 'zip',
              file_count: 0,
              total_size: 0,
              entry_file: null,
              content_check: null,
              created_by: ownerId,
              created_at: at,
            })
            .returning('id')
            .executeTakeFirstOrThrow();
          await db
            .updateTable('projects')
            .set({ latest_deployment_id: d.id })
            .where('id', '=', p.id)
            .execute();
          for (const action of actions) {
            await db
              .insertInto('review_comments')
              .values({
                project_id: p.id,
                deployment_id: d.id,
                actor_id: ownerId,
                action,
                comment: '原因',
                created_at: at,
              })
              .execute();
          }
          return p.id as number;
        };
        ids = {
          takenDown: await project('下线的', ['approve', 'takedown']),
          rejected: await project('拒绝的', ['reject']),
          // Taken down, then a new upload was rejected: the latest decision is what it is now.
          rejectedAfterTakedown: await project('下线后又被拒绝', ['approve', 'takedown', 'reject']),
        };
      },
      async (handle) => {
        const rows = await handle.db
          .selectFrom('projects')
          .select(['id', 'status', 'view_count', 'latest_deployment_id'])
          .orderBy('id')
          .execute();
        const statusOf = new Map(rows.map((r) => [r.id, r.status]));
        expect(statusOf.get(ids!.takenDown)).toBe('taken_down');
        expect(statusOf.get(ids!.rejected)).toBe('rejected');
        expect(statusOf.get(ids!.rejectedAfterTakedown)).toBe('rejected');
        // Nothing cascaded away with the rebuilt table, and every column came across.
        expect(rows.every((r) => Number(r.view_count) === 3 && r.latest_deployment_id !== null)).toBe(true);
        const versions = await handle.db.selectFrom('deployments').select('id').execute();
        expect(versions).toHaveLength(3);
        const comments = await handle.db.selectFrom('review_comments').select('id').execute();
        expect(comments).toHaveLength(6);
        // The new state is accepted, an unknown one still refused, and foreign keys still hold.
        await handle.db
          .updateTable('projects')
          .set({ status: 'taken_down' })
          .where('id', '=', ids!.rejected)
          .execute();
        await expect(
          sql`update projects set status = 'gone' where id = ${ids!.rejected}`.execute(handle.db),
        ).rejects.toThrow();
        await expect(
          sql`insert into deployments (project_id, version, status, upload_type, file_count, total_size, created_by, created_at)
              values (999999, 1, 'pending', 'zip', 0, 0, 1, 'x')`.execute(handle.db),
        ).rejects.toThrow();
        // The showcase's triggers on projects were made again: a change still queues the project.
        await sql`delete from showcase_queue`.execute(handle.db);
        await handle.db
          .updateTable('projects')
          .set({ is_public: 0 })
          .where('id', '=', ids!.takenDown)
          .execute();
        const queued = await sql<{ project_id: number }>`select project_id from showcase_queue`.execute(
          handle.db,
        );
        expect(queued.rows.map((r) => Number(r.project_id))).toEqual([ids!.takenDown]);
      },
    );
  });
});
