/**
 * The whole review transition table of docs/product.md "Statuses and transitions": every action from
 * every state a project can be in, run through POST /api/admin/projects/{id}/review. An allowed
 * action answers 200 and lands in the expected state (live version, featured mark, site served or
 * not, a review comment and an audit entry); any other answers 409 and changes nothing at all.
 */
import {
  format,
  messages,
  REVIEW_ACTION_LABELS,
  type ReviewAction,
  reasonRequiredMessage,
  STATUS_LABELS,
} from '@sitehall/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectFailure, review, type TestApp, uploadProject } from './helpers.js';

type State =
  | 'pending'
  | 'approved'
  | 'published'
  | 'rejected'
  | 'taken_down'
  | 'rejected-but-live'
  | 'pending-while-live'
  | 'pending-while-published'
  | 'rejected-while-published';

const STATES: State[] = [
  'pending',
  'approved',
  'published',
  'rejected',
  'taken_down',
  'rejected-but-live',
  'pending-while-live',
  'pending-while-published',
  'rejected-while-published',
];
const ACTIONS: ReviewAction[] = ['approve', 'reject', 'publish', 'unpublish', 'takedown'];

/** What the project looks like after an allowed action (live: the version served, or null). */
interface Outcome {
  status: 'pending' | 'approved' | 'published' | 'rejected' | 'taken_down';
  live: 1 | 2 | null;
  featured: boolean;
}

const ALLOWED: Record<State, Partial<Record<ReviewAction, Outcome>>> = {
  pending: {
    approve: { status: 'approved', live: 1, featured: false },
    reject: { status: 'rejected', live: null, featured: false },
  },
  approved: {
    publish: { status: 'published', live: 1, featured: true },
    takedown: { status: 'taken_down', live: null, featured: false },
  },
  published: {
    unpublish: { status: 'approved', live: 1, featured: false },
    takedown: { status: 'taken_down', live: null, featured: false },
  },
  rejected: {},
  // Offline: going live again takes a new upload and its review.
  taken_down: {},
  'rejected-but-live': {
    takedown: { status: 'taken_down', live: null, featured: false },
  },
  'pending-while-live': {
    approve: { status: 'approved', live: 2, featured: false },
    reject: { status: 'rejected', live: 1, featured: false },
    takedown: { status: 'taken_down', live: null, featured: false },
  },
  // The featured mark comes off while a newer upload waits or was refused: that status stays.
  'pending-while-published': {
    approve: { status: 'published', live: 2, featured: true },
    reject: { status: 'rejected', live: 1, featured: true },
    unpublish: { status: 'pending', live: 1, featured: false },
    takedown: { status: 'taken_down', live: null, featured: false },
  },
  'rejected-while-published': {
    unpublish: { status: 'rejected', live: 1, featured: false },
    takedown: { status: 'taken_down', live: null, featured: false },
  },
};

let t: TestApp;
let owner: { token: string };
beforeAll(async () => {
  t = await createTestApp();
  owner = await t.createUser();
  // One owner makes every project of the table here: more than the default uploads per hour.
  const res = await t.request({
    method: 'PUT',
    url: '/api/admin/config',
    token: await t.adminToken(),
    body: { max_uploads_per_hour: 0 },
  });
  if (res.statusCode !== 200) throw new Error(`config failed: ${res.statusCode} ${res.body}`);
});
afterAll(() => t.close());

const page = (v: number) => [{ name: 'index.html', content: `<h1>v${v}</h1>` }];

async function decide(id: number, action: string, comment = '理由') {
  const res = await review(t, id, action, comment);
  if (res.statusCode !== 200) throw new Error(`${action} failed: ${res.statusCode} ${res.body}`);
}

/** A project brought into the given state through the API. */
async function projectIn(state: State): Promise<number> {
  const res = await uploadProject(t, owner.token, { name: `状态 ${state}`, files: page(1) });
  if (res.statusCode !== 201) throw new Error(`upload failed: ${res.statusCode} ${res.body}`);
  const id = res.json().data.project.id as number;
  const newVersion = async () => {
    const up = await uploadProject(t, owner.token, { projectId: id, files: page(2) });
    if (up.statusCode !== 200) throw new Error(`new version failed: ${up.statusCode} ${up.body}`);
  };
  switch (state) {
    case 'pending':
      break;
    case 'rejected':
      await decide(id, 'reject');
      break;
    case 'taken_down':
      await decide(id, 'approve');
      await decide(id, 'takedown');
      break;
    case 'approved':
    case 'pending-while-live':
    case 'rejected-but-live':
      await decide(id, 'approve');
      if (state !== 'approved') await newVersion();
      if (state === 'rejected-but-live') await decide(id, 'reject');
      break;
    case 'published':
    case 'pending-while-published':
    case 'rejected-while-published':
      await decide(id, 'approve');
      await decide(id, 'publish');
      if (state !== 'published') await newVersion();
      if (state === 'rejected-while-published') await decide(id, 'reject');
      break;
  }
  return id;
}

/**
 * Everything a decision could change: the project, its versions, its comments and audit rows.
 * Views counted by earlier site requests are written first: otherwise the timed view flush could
 * land between two snapshots and change view_count, which no decision touches.
 */
async function snapshot(id: number) {
  const db = t.ctx.db;
  await t.ctx.services.views.flush();
  return {
    project: await db.selectFrom('projects').selectAll().where('id', '=', id).executeTakeFirst(),
    deployments: await db
      .selectFrom('deployments')
      .selectAll()
      .where('project_id', '=', id)
      .orderBy('id')
      .execute(),
    comments: await db
      .selectFrom('review_comments')
      .selectAll()
      .where('project_id', '=', id)
      .orderBy('id')
      .execute(),
    audit: await db
      .selectFrom('audit_logs')
      .selectAll()
      .where('target_type', '=', 'project')
      .where('target_id', '=', String(id))
      .orderBy('id')
      .execute(),
  };
}

describe.each(STATES)('from %s', (state) => {
  it.each(ACTIONS)('%s', async (action) => {
    const id = await projectIn(state);
    const site = (await t.request({ url: `/sites/${id}/` })).body;
    const before = await snapshot(id);
    // The abilities sent with the project are exactly the actions the server accepts from here:
    // the admin's buttons come from them (ProjectDto.abilities), the owner gets none.
    const adminView = await t.request({ url: `/api/admin/projects/${id}`, token: await t.adminToken() });
    const expected = Object.fromEntries(ACTIONS.map((a) => [a, ALLOWED[state][a] !== undefined]));
    expect(adminView.json().data.project.abilities).toEqual(expected);
    const ownerView = await t.request({ url: `/api/projects/${id}`, token: owner.token });
    expect(ownerView.json().data.project.abilities).toEqual(
      Object.fromEntries(ACTIONS.map((a) => [a, false])),
    );
    const res = await review(t, id, action, '审核意见');
    const outcome = ALLOWED[state][action];

    if (!outcome) {
      const from = STATUS_LABELS[before.project!.status];
      expectFailure(
        res,
        409,
        format(messages.review.transitionNotAllowed, { from, action: REVIEW_ACTION_LABELS[action] }),
      );
      expect(await snapshot(id)).toEqual(before);
      expect((await t.request({ url: `/sites/${id}/` })).body).toBe(site);
      return;
    }

    expect(res.statusCode, res.body).toBe(200);
    const project = res.json().data.project;
    expect(project).toMatchObject({
      status: outcome.status,
      featured: outcome.featured,
      is_live: outcome.live !== null,
      live_version: outcome.live,
    });
    // The showcase's 精选 list follows the mark: a live site featured, and nothing else.
    const featuredCards = (await t.request({ url: '/api/projects/public?featured=true&page_size=60' })).json()
      .data.projects as { id: number }[];
    expect(featuredCards.some((card) => card.id === id)).toBe(outcome.featured && outcome.live !== null);
    const served = await t.request({ url: `/sites/${id}/` });
    if (outcome.live === null) expect(served.statusCode).toBe(404);
    else expect(served.body).toBe(`<h1>v${outcome.live}</h1>`);

    const after = await snapshot(id);
    expect(after.comments).toHaveLength(before.comments.length + 1);
    expect(after.comments.at(-1)).toMatchObject({ action, comment: '审核意见' });
    const entries = after.audit.filter((a) => a.action === `review.${action}`);
    expect(entries).toHaveLength(before.audit.filter((a) => a.action === `review.${action}`).length + 1);
    expect(JSON.parse(entries.at(-1)!.detail!)).toMatchObject({
      from: before.project!.status,
      to: outcome.status,
      comment: '审核意见',
    });
    expect(entries.at(-1)).toMatchObject({ actor_name: 'admin', ip: '127.0.0.1' });
  });
});

describe('comments and batches', () => {
  it('refuses reject and takedown without a reason (400), from a state that allows them', async () => {
    for (const [state, action] of [
      ['pending', 'reject'],
      ['approved', 'takedown'],
    ] as const) {
      const id = await projectIn(state);
      const before = await snapshot(id);
      for (const comment of [undefined, '', '   ']) {
        const res = await t.request({
          method: 'POST',
          url: `/api/admin/projects/${id}/review`,
          token: await t.adminToken(),
          body: { action, ...(comment !== undefined ? { comment } : {}) },
        });
        // Each decision in its own words: 拒绝… for reject, 下线… for takedown.
        const body = expectFailure(res, 400, reasonRequiredMessage(action));
        expect(body.errors?.comment).toBe(reasonRequiredMessage(action));
      }
      expect(await snapshot(id)).toEqual(before);
    }
  });

  it('applies a batch to each project on its own: allowed ones change, the others are untouched', async () => {
    const ids = {
      approved: await projectIn('approved'),
      published: await projectIn('published'),
      pending: await projectIn('pending'),
      rejected: await projectIn('rejected'),
    };
    const untouched = {
      pending: await snapshot(ids.pending),
      rejected: await snapshot(ids.rejected),
    };
    const res = await t.request({
      method: 'POST',
      url: '/api/admin/projects/batch',
      token: await t.adminToken(),
      body: {
        projectIds: [ids.approved, ids.pending, ids.published, ids.rejected, 2_000_000_000],
        action: 'takedown',
        data: { comment: '批量下线' },
      },
    });
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data).toMatchObject({ succeeded: 2, failed: 3 });
    const byId = new Map(data.results.map((r: { id: number }) => [r.id, r]));
    expect(byId.get(ids.approved)).toEqual({ id: ids.approved, success: true, message: '项目已下线' });
    expect(byId.get(ids.published)).toMatchObject({ success: true });
    expect(byId.get(ids.pending)).toMatchObject({
      success: false,
      message: format(messages.review.transitionNotAllowed, { from: '待审核', action: '下线' }),
    });
    expect(byId.get(ids.rejected)).toMatchObject({ success: false });
    expect(byId.get(2_000_000_000)).toMatchObject({ success: false, message: messages.project.notFound });
    expect(await snapshot(ids.pending)).toEqual(untouched.pending);
    expect(await snapshot(ids.rejected)).toEqual(untouched.rejected);
    for (const id of [ids.approved, ids.published]) {
      expect((await t.request({ url: `/sites/${id}/` })).statusCode).toBe(404);
    }

    // A batch reject without a reason fails for every project, and changes none.
    const p = await projectIn('pending');
    const before = await snapshot(p);
    const noReason = await t.request({
      method: 'POST',
      url: '/api/admin/projects/batch',
      token: await t.adminToken(),
      body: { projectIds: [p], action: 'reject' },
    });
    expect(noReason.json().data.results).toEqual([
      { id: p, success: false, message: messages.review.reasonRequired },
    ]);
    expect(await snapshot(p)).toEqual(before);
  });

  it('refuses an unknown action or an empty batch with 400', async () => {
    const admin = await t.adminToken();
    const bad = await t.request({
      method: 'POST',
      url: '/api/admin/projects/batch',
      token: admin,
      body: { projectIds: [], action: 'approve' },
    });
    expectFailure(bad, 400);
    const unknown = await t.request({
      method: 'POST',
      url: '/api/admin/projects/batch',
      token: admin,
      body: { projectIds: [1], action: 'explode' },
    });
    expectFailure(unknown, 400, messages.review.statusRequired);
  });
});
