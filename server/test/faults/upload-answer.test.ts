/**
 * The database failing after an upload committed, while its answer is read (the project's detail:
 * versions, files, review history). Found by the chaos run (docs/benchmarks.md "Chaos"): the
 * detail was returned unawaited from a try whose finally still removed the staging folder, so its
 * failure was a rejection nothing handled, and the process ended. Now the upload and the new
 * version answer with an error and the server serves on. The failure is real: the table the
 * detail reads last is renamed away under the running app.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, SIMPLE_SITE, type TestApp, uploadProject } from '../helpers.js';

describe('an upload whose answer cannot be read', () => {
  let t: TestApp;
  const unhandled: unknown[] = [];
  const collect = (err: unknown) => unhandled.push(err);

  beforeAll(async () => {
    process.on('unhandledRejection', collect);
    t = await createTestApp();
  });
  afterAll(async () => {
    process.off('unhandledRejection', collect);
    await t?.close();
  });

  it('a new project and a new version answer with an error; nothing is left unhandled', async () => {
    const owner = await t.createUser();
    const first = await uploadProject(t, owner.token, { name: '先有的项目', files: SIMPLE_SITE });
    expect(first.statusCode).toBe(201);
    const id = first.json().data.project.id as number;
    await sql`alter table review_comments rename to review_comments_away`.execute(t.ctx.db);
    try {
      const upload = await uploadProject(t, owner.token, { name: '答复读不出', files: SIMPLE_SITE });
      expect(upload.statusCode).toBe(500);
      const version = await uploadProject(t, owner.token, { projectId: id, files: SIMPLE_SITE });
      expect(version.statusCode).toBe(500);
    } finally {
      await sql`alter table review_comments_away rename to review_comments`.execute(t.ctx.db);
    }
    // Node reports a rejection left unhandled once the microtasks of its turn have run: long before
    // the answer, which waits for the staging folder's removal.
    expect(unhandled).toEqual([]);
    expect(
      (await t.request({ method: 'GET', url: `/api/projects/${id}`, token: owner.token })).statusCode,
    ).toBe(200);
  });
});
