/**
 * The render queue is fair between accounts (docs/render.md "Jobs"): the next job taken is the
 * oldest due one of the account served least recently, so an account that queued many renders
 * holds another's by one render per worker, not by its whole queue (an outside review measured
 * 261 s behind ten slow uploads). Each account's own jobs still go in their order, a job whose
 * lease ran out is still taken, in its account's turn, and deleting a project gives its account no
 * turn back; deleting the account removes its turn. The takes are the worker's (the repository's
 * take), with a clock the test moves. Both engines.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { up as pruneDeletedAccountsTurns } from '../src/db/migrations/031_render_turns_of_deleted_accounts.js';
import type { RenderJobRow } from '../src/repositories/render-jobs.js';
import { createTestApp, SIMPLE_SITE, type TestApp, uploadProject } from './helpers.js';

let t: TestApp;
/** The worker's clock: each take a second after the one before. */
let clock: number;

beforeEach(async () => {
  t = await createTestApp();
});
afterEach(() => t.close());

/**
 * Uploads `count` new projects as a new account: its id and token, the projects and their versions,
 * each with its queued render.
 */
async function accountQueuing(
  count: number,
): Promise<{ id: number; token: string; projects: number[]; versions: number[] }> {
  const owner = await t.createUser();
  const projects: number[] = [];
  const versions: number[] = [];
  for (let i = 0; i < count; i++) {
    const res = await uploadProject(t, owner.token, { name: `站点 ${i + 1}`, files: SIMPLE_SITE });
    expect(res.statusCode).toBe(201);
    const p = await t.ctx.repositories.projects.byId(t.ctx.db, res.json().data.project.id);
    projects.push(p!.id);
    versions.push(p!.latest_deployment_id!);
  }
  clock = Date.now();
  return { id: owner.id, token: owner.token, projects, versions };
}

/** One take by `holder`, a second after the last, under a lease of `leaseMs`. */
function take(holder = 'worker', leaseMs = 3_600_000): Promise<RenderJobRow | undefined> {
  clock += 1_000;
  return t.ctx.repositories.renderJobs.take(
    t.ctx.db,
    holder,
    new Date(clock).toISOString(),
    new Date(clock + leaseMs).toISOString(),
  );
}

/** The versions of the next `count` takes, one after another. */
async function takes(count: number): Promise<Array<number | undefined>> {
  const out: Array<number | undefined> = [];
  for (let i = 0; i < count; i++) out.push((await take())?.deployment_id);
  return out;
}

describe('render queue between accounts', () => {
  it("an account's one render waits for one of another's ten, not all of them; each account's own go in order", async () => {
    const { versions: a } = await accountQueuing(10);
    const [b] = (await accountQueuing(1)).versions;
    expect(await takes(12)).toEqual([a[0], b, ...a.slice(1), undefined]);
  });

  it('accounts take turns, each one the oldest of its own', async () => {
    const { versions: a } = await accountQueuing(3);
    const { versions: b } = await accountQueuing(2);
    const [c] = (await accountQueuing(1)).versions;
    expect(await takes(6)).toEqual([a[0], b[0], c, a[1], b[1], a[2]]);
  });

  it('two workers taking at once take one render of each account', async () => {
    const { versions: a } = await accountQueuing(3);
    const [b] = (await accountQueuing(1)).versions;
    const both = await Promise.all([take('one'), take('two')]);
    expect(new Set(both.map((j) => j?.deployment_id))).toEqual(new Set([a[0], b]));
    expect(new Set(both.map((j) => j?.holder))).toEqual(new Set(['one', 'two']));
  });

  it("a render whose lease ran out is taken again, in its account's turn", async () => {
    const { versions: a } = await accountQueuing(2);
    const [b] = (await accountQueuing(1)).versions;
    // Its worker died a minute into the render: the lease lapses.
    expect((await take('gone', 60_000))?.deployment_id).toBe(a[0]);
    clock += 60_000;
    expect((await take())?.deployment_id).toBe(b);
    expect(await take()).toMatchObject({ deployment_id: a[0], holder: 'worker', attempts: 2 });
    expect(await takes(2)).toEqual([a[1], undefined]);
  });

  it('deleting the project whose render was taken gives its account no turn back', async () => {
    const a = await accountQueuing(2);
    const [b] = (await accountQueuing(1)).versions;
    const first = await take();
    expect(first?.deployment_id).toBe(a.versions[0]);
    // Its job row goes with the project: the account's turn stays.
    const del = await t.request({
      method: 'DELETE',
      url: `/api/projects/${first!.project_id}`,
      token: a.token,
    });
    expect(del.statusCode).toBe(200);
    expect(await takes(3)).toEqual([b, a.versions[1], undefined]);
  });

  it('deleting an account deletes its turn, in the same transaction; turns left before are pruned', async () => {
    const a = await accountQueuing(1);
    const b = await accountQueuing(1);
    expect(await takes(2)).toEqual([a.versions[0], b.versions[0]]);
    const turns = async () =>
      (await t.ctx.db.selectFrom('render_turns').select('owner_id').orderBy('owner_id').execute()).map(
        (r) => r.owner_id,
      );
    expect(await turns()).toEqual([a.id, b.id]);
    // An account is deleted once its projects are.
    const del = await t.request({ method: 'DELETE', url: `/api/projects/${a.projects[0]}`, token: a.token });
    expect(del.statusCode).toBe(200);
    const gone = await t.request({
      method: 'DELETE',
      url: `/api/admin/users/${a.id}`,
      token: await t.adminToken(),
    });
    expect(gone.statusCode).toBe(200);
    expect(await turns()).toEqual([b.id]);
    // A turn an account deleted before this change left behind goes with migration 031; the others stay.
    await t.ctx.db
      .insertInto('render_turns')
      .values({ owner_id: b.id + 1000, turn: 99 })
      .execute();
    await pruneDeletedAccountsTurns(t.ctx.db as never, t.database.dialect);
    expect(await turns()).toEqual([b.id]);
  });
});
