/**
 * Old rows expire (docs/notifications.md "How long rows are kept"): read notices after 90 days,
 * unread ones after a year, the daily analytics of a site after 400 days; removed by the timed
 * jobs (jobs/timed.ts), on both engines.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTimedJobs } from '../src/jobs/timed.js';
import { ANALYTICS_KEEP_DAYS } from '../src/services/retention.js';
import { createTestApp, liveProject, type TestApp } from './helpers.js';

const DAY = 86_400_000;
const daysAgo = (n: number) => new Date(Date.now() - n * DAY).toISOString();

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

async function notice(userId: number, name: string, madeDaysAgo: number, read: boolean) {
  await t.ctx.db
    .insertInto('notifications')
    .values({
      user_id: userId,
      kind: 'approved',
      project_id: null,
      project_name: name,
      version: 1,
      reason: null,
      read_at: read ? daysAgo(madeDaysAgo - 1) : null,
      created_at: daysAgo(madeDaysAgo),
    })
    .execute();
}

async function analyticsRows(projectId: number, day: string) {
  const db = t.ctx.db;
  await db.insertInto('project_daily_views').values({ project_id: projectId, day, views: 3 }).execute();
  await db
    .insertInto('project_daily_pages')
    .values({ project_id: projectId, day, path: 'index.html', views: 3 })
    .execute();
  await db
    .insertInto('project_daily_referrers')
    .values({ project_id: projectId, day, host: 'search.example', views: 1 })
    .execute();
  await db.insertInto('project_daily_bytes').values({ project_id: projectId, day, bytes: 900 }).execute();
}

async function daysKept(projectId: number) {
  const db = t.ctx.db;
  const days = async (
    table: 'project_daily_views' | 'project_daily_pages' | 'project_daily_referrers' | 'project_daily_bytes',
  ) =>
    (
      await db.selectFrom(table).select('day').where('project_id', '=', projectId).orderBy('day').execute()
    ).map((r) => r.day);
  return {
    views: await days('project_daily_views'),
    pages: await days('project_daily_pages'),
    referrers: await days('project_daily_referrers'),
    bytes: await days('project_daily_bytes'),
  };
}

describe('retention', () => {
  it('deletes read notices after 90 days, unread after a year, analytics days after 400, by the timed jobs', async () => {
    const u = await t.createUser();
    await notice(u.id, 'read-old', 91, true);
    await notice(u.id, 'read-young', 89, true);
    await notice(u.id, 'unread-89', 89, false);
    await notice(u.id, 'unread-200', 200, false);
    await notice(u.id, 'unread-366', 366, false);
    const { id } = await liveProject(t);
    const day = (n: number) => daysAgo(n).slice(0, 10);
    const oldest = day(ANALYTICS_KEEP_DAYS + 5);
    const lastGone = day(ANALYTICS_KEEP_DAYS);
    const firstKept = day(ANALYTICS_KEEP_DAYS - 1);
    const recent = day(3);
    for (const d of [oldest, lastGone, firstKept, recent]) await analyticsRows(id, d);

    // The timed jobs' own round (not a direct call): the mechanism the server runs every 6 hours.
    const jobs = startTimedJobs(
      { ...t.ctx.services, showcase: t.ctx.showcase },
      { retentionMs: 200, viewFlushMs: 60_000, previewPurgeMs: 600_000, showcaseIndexMs: 600_000 },
    );
    try {
      await expect
        .poll(async () => (await daysKept(id)).views, { timeout: 60_000 })
        .toEqual([firstKept, recent]);
    } finally {
      await jobs.stop();
    }
    expect(await daysKept(id)).toEqual({
      views: [firstKept, recent],
      pages: [firstKept, recent],
      referrers: [firstKept, recent],
      bytes: [firstKept, recent],
    });
    const left = await t.ctx.db
      .selectFrom('notifications')
      .select('project_name')
      .where('user_id', '=', u.id)
      .orderBy('project_name')
      .execute();
    expect(left.map((r) => r.project_name)).toEqual(['read-young', 'unread-200', 'unread-89']);
  });

  it('a second run finds nothing more to delete', async () => {
    expect(await t.ctx.services.retention.run()).toEqual({ notices: 0, analyticsRows: 0 });
  });
});
