/**
 * The audit log grown without bound by one account (docs/security.md "Uploads and projects"): every
 * route that writes an audit entry for the signed-in account takes from one budget,
 * AUDITED_WRITES_MAX in AUDITED_WRITES_WINDOW_MS, shared by all of them
 * (docs/decisions/operations.md "A budget of audited writes per account"). 200 edits sent at once
 * wrote 200 entries on the old code; now the budget's worth pass, the rest are 429 with a Chinese
 * message and Retry-After, and neither another route nor a request sent at the same moment gets
 * past it. Requests that fail give their place back; other accounts and admins are not held to it.
 */
import { AUDITED_WRITES_MAX, AUDITED_WRITES_WINDOW_MS, format, messages } from '@sitehall/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectFailure, liveProject, type TestApp } from './helpers.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const refusal = format(messages.common.auditedWritesExceeded, {
  n: AUDITED_WRITES_MAX,
  window: AUDITED_WRITES_WINDOW_MS / 60_000,
  minutes: AUDITED_WRITES_WINDOW_MS / 60_000,
});

const edit = (id: number, token: string, description: unknown) =>
  t.request({ method: 'PUT', url: `/api/projects/${id}`, token, body: { description } });

async function entriesOf(actorId: number) {
  const rows = await t.ctx.db
    .selectFrom('audit_logs')
    .select('action')
    .where('actor_id', '=', actorId)
    .execute();
  return rows.map((r) => r.action);
}

describe('the budget of audited writes of an account', () => {
  it('lets the budget’s worth of edits sent at once through, refuses the rest on every audited route, writing nothing', async () => {
    const owner = await t.createUser();
    const { id } = await liveProject(t, undefined, { owner });
    // The upload took one write of the budget.
    expect((await entriesOf(owner.id)).filter((a) => a !== 'auth.login')).toEqual(['project.upload']);

    // A request that fails writes nothing and takes nothing.
    for (let i = 0; i < 5; i++) expectFailure(await edit(id, owner.token, 42), 400);

    const sent = AUDITED_WRITES_MAX + 50;
    const answers = await Promise.all(
      Array.from({ length: sent }, (_, i) => edit(id, owner.token, `第 ${i} 次`)),
    );
    const passed = answers.filter((r) => r.statusCode === 200);
    const refused = answers.filter((r) => r.statusCode === 429);
    expect(passed.length + refused.length).toBe(sent);
    expect(passed).toHaveLength(AUDITED_WRITES_MAX - 1);
    for (const r of refused) {
      expectFailure(r, 429, refusal);
      expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(r.headers['retry-after'])).toBeLessThanOrEqual(AUDITED_WRITES_WINDOW_MS / 1000);
    }
    const updates = (await entriesOf(owner.id)).filter((a) => a === 'project.update');
    expect(updates).toHaveLength(AUDITED_WRITES_MAX - 1);

    // The budget is the account's, whatever the route: tokens, downloads, preview links, domains,
    // the profile and the delete are refused too, and change nothing.
    const others = [
      { method: 'POST', url: '/api/auth/tokens', body: { name: '又一个' } },
      { method: 'GET', url: `/api/projects/${id}/download` },
      { method: 'POST', url: `/api/projects/${id}/preview-token` },
      { method: 'POST', url: `/api/projects/${id}/domains`, body: { domain: 'www.budget-club.test' } },
      { method: 'PUT', url: '/api/auth/profile', body: { email: 'budget@example.com' } },
      { method: 'DELETE', url: `/api/projects/${id}` },
    ] as const;
    for (const r of others) expectFailure(await t.request({ ...r, token: owner.token }), 429, refusal);
    expect((await entriesOf(owner.id)).filter((a) => a !== 'auth.login')).toHaveLength(AUDITED_WRITES_MAX);
    expect((await t.request({ url: `/api/projects/${id}`, token: owner.token })).statusCode).toBe(200);
    // Reading is not writing: the project and the list still answer.
    expect((await t.request({ url: '/api/projects/my', token: owner.token })).statusCode).toBe(200);

    // Another account has a budget of its own, and an admin none.
    const other = await liveProject(t);
    expect((await edit(other.id, other.owner.token, '别人的')).statusCode).toBe(200);
    const admin = await t.adminToken();
    const adminLink = await t.request({
      method: 'POST',
      url: `/api/projects/${id}/preview-token`,
      token: admin,
    });
    expect(adminLink.statusCode, adminLink.body).toBe(200);
  });

  it('is one budget for an account’s sessions and API tokens together', async () => {
    const { id, owner } = await liveProject(t);
    const made = await t.request({
      method: 'POST',
      url: '/api/auth/tokens',
      token: owner.token,
      body: { name: '部署' },
    });
    expect(made.statusCode, made.body).toBe(201);
    const apiToken = made.json().data.token as string;
    // Upload and token: two taken. Half the rest through the session, half through the token.
    const left = AUDITED_WRITES_MAX - 2;
    const answers = await Promise.all(
      Array.from({ length: left + 10 }, (_, i) => edit(id, i % 2 === 0 ? owner.token : apiToken, `${i}`)),
    );
    expect(answers.filter((r) => r.statusCode === 200)).toHaveLength(left);
    expect(answers.filter((r) => r.statusCode === 429)).toHaveLength(10);
  });
});
