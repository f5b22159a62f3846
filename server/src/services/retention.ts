/**
 * Rows that would otherwise grow for ever are deleted once they are old (docs/notifications.md
 * "How long rows are kept"): notices under the bell, and the daily analytics of every site.
 * Run by the timed jobs (jobs/timed.ts), on one instance per round.
 */
import type { DB } from '../db/database.js';
import type { Repositories } from '../repositories/index.js';

/** A notice that has been read is kept this many days after it was made. */
export const NOTICE_READ_KEEP_DAYS = 90;
/** An unread notice is kept this many days after it was made. */
export const NOTICE_UNREAD_KEEP_DAYS = 365;
/** Daily views, pages, referrers and bytes of a site are kept this many UTC days. */
export const ANALYTICS_KEEP_DAYS = 400;

const DAY_MS = 86_400_000;

export interface RetentionResult {
  notices: number;
  analyticsRows: number;
}

export function createRetentionService(deps: {
  db: DB;
  repos: Pick<Repositories, 'notifications' | 'projectDailyViews' | 'siteAnalytics'>;
}) {
  const { db } = deps;
  const { notifications: notices, projectDailyViews, siteAnalytics: analytics } = deps.repos;
  return {
    /** Deletes what is past its time at `at` (now, except in tests). */
    async run(at: Date = new Date()): Promise<RetentionResult> {
      const t = at.getTime();
      const iso = (days: number) => new Date(t - days * DAY_MS).toISOString();
      const removed = await notices.expire(db, {
        readBefore: iso(NOTICE_READ_KEEP_DAYS),
        unreadBefore: iso(NOTICE_UNREAD_KEEP_DAYS),
      });
      // The first UTC day kept: today and the 399 before it.
      const firstDay = iso(ANALYTICS_KEEP_DAYS - 1).slice(0, 10);
      const rows =
        (await analytics.expireBefore(db, firstDay)) + (await projectDailyViews.expireBefore(db, firstDay));
      return { notices: removed, analyticsRows: rows };
    },
  };
}
export type RetentionService = ReturnType<typeof createRetentionService>;
