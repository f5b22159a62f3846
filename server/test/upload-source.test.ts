/**
 * How a version's files arrived (deployments.upload_source, migration 012): loose files, an archive
 * by the format its bytes showed (RAR and 7z, not only "zip"), or a digest deploy
 * (server/test/deploys.test.ts). The review page names it (RAR 压缩包); versions from before the
 * column have none and keep their old name.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { acrossMigration, createTestApp, insertOldUser, type TestApp, uploadProject } from './helpers.js';

const fixture = (name: string) => fs.readFileSync(path.join(import.meta.dirname, 'fixtures', name));

describe('the way a version came in', () => {
  let t: TestApp;
  let owner: Awaited<ReturnType<TestApp['createUser']>>;
  beforeAll(async () => {
    t = await createTestApp();
    owner = await t.createUser();
  });
  afterAll(() => t.close());

  // upload_type says only "an archive"; upload_source keeps the format the bytes showed, whatever
  // the file was called, on the project and on each of its versions.
  it.each([
    ['site.rar', 'rar/site.rar', 'rar'],
    ['site.7z', '7z/site.7z', '7z'],
    ['named-wrong.zip', 'rar/site.rar', 'rar'],
  ])('records an archive uploaded as %s (%s) as %s', async (name, file, format) => {
    const res = await uploadProject(t, owner.token, {
      name: `压缩包 ${name}`,
      files: [{ name, content: fixture(file) }],
    });
    expect(res.statusCode, res.body).toBe(201);
    const p = res.json().data.project;
    expect([p.upload_type, p.upload_source, p.entry_file]).toEqual(['zip', format, 'index.html']);
    const detail = await t.request({ url: `/api/admin/projects/${p.id}`, token: await t.adminToken() });
    const read = detail.json().data.project;
    expect(read.upload_source).toBe(format);
    expect(read.deployments.map((d: { upload_source: string }) => d.upload_source)).toEqual([format]);

    // A new version of loose files says so; the first keeps its format.
    const next = await uploadProject(t, owner.token, {
      projectId: p.id,
      files: [{ name: 'index.html', content: '<p>v2</p>' }],
    });
    expect(next.statusCode, next.body).toBe(200);
    const after = next.json().data.project;
    expect([after.upload_type, after.upload_source]).toEqual(['files', 'files']);
    const versions = after.deployments as { version: number; upload_source: string }[];
    expect(versions.map((d) => [d.version, d.upload_source]).sort()).toEqual([
      [1, format],
      [2, 'files'],
    ]);
  });

  it('leaves versions from before the column without one, read as before', async () => {
    await acrossMigration(
      '011_api_tokens_deploys',
      async (db) => {
        const at = new Date().toISOString();
        const ownerId = await insertOldUser(db);
        const project = await db
          .insertInto('projects')
          .values({
            owner_id: ownerId,
            name: '旧项目',
            description: null,
            status: 'pending',
            is_public: 1,
            view_count: 0,
            download_count: 0,
            created_at: at,
            updated_at: at,
            search_text: '旧项目',
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        await db
          .insertInto('deployments')
          .values({
            project_id: project.id,
            version: 1,
            status: 'pending',
            upload_type: 'zip',
            file_count: 0,
            total_size: 0,
            entry_file: null,
            content_check: null,
            created_by: ownerId,
            created_at: at,
          })
          .execute();
      },
      async (handle) => {
        const rows = await handle.db
          .selectFrom('deployments')
          .select(['upload_type', 'upload_source'])
          .execute();
        expect(rows).toEqual([{ upload_type: 'zip', upload_source: null }]);
      },
    );
  });

  it('answers null for a version without one, with its upload type as before', async () => {
    const res = await uploadProject(t, owner.token, {
      name: '旧版本',
      files: [{ name: 'index.html', content: '<p>旧</p>' }],
    });
    const id = res.json().data.project.id as number;
    // What a version uploaded before migration 012 holds.
    await t.ctx.db
      .updateTable('deployments')
      .set({ upload_source: null })
      .where('project_id', '=', id)
      .execute();
    const read = (await t.request({ url: `/api/projects/${id}`, token: owner.token })).json().data.project;
    expect([read.upload_type, read.upload_source]).toEqual(['files', null]);
    expect(read.deployments[0].upload_source).toBeNull();
  });
});
