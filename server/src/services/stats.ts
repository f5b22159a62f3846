/**
 * The admin dashboard's figures, all counted from the data: projects by status, users, views,
 * downloads, and this week against last week (rolling 7-day windows ending now; views by UTC day).
 */
import type { AdminStatsDto, SiteIsolationMode, WeekTrendDto } from '@sitehall/contracts';
import type { DB } from '../db/database.js';
import type { Repositories } from '../repositories/index.js';

const DAY_MS = 86_400_000;

/** (this − last) / last in percent, one decimal; 0 when both are 0; null when there is no base. */
export function trendPercent(thisWeek: number, lastWeek: number): number | null {
  if (lastWeek === 0) return thisWeek === 0 ? 0 : null;
  return Math.round(((thisWeek - lastWeek) / lastWeek) * 1000) / 10;
}

function trend(thisWeek: number, lastWeek: number): WeekTrendDto {
  return { this_week: thisWeek, last_week: lastWeek, trend_percent: trendPercent(thisWeek, lastWeek) };
}

export function createStatsService(deps: {
  db: DB;
  repos: Pick<Repositories, 'projects' | 'users' | 'deployments' | 'projectDailyViews' | 'reviewComments'>;
  /** Fixed by the configuration: said on the dashboard, which warns while sites share an origin. */
  siteIsolation?: AdminStatsDto['site_isolation'];
}) {
  const { db } = deps;
  const { projects, users, deployments, projectDailyViews, reviewComments } = deps.repos;
  const siteIsolation = deps.siteIsolation ?? { mode: 'sandboxed' as SiteIsolationMode, sites_port: null };
  return {
    async overview(at: Date = new Date()): Promise<AdminStatsDto> {
      const iso = (ms: number) => new Date(ms).toISOString();
      const day = (ms: number) => iso(ms).slice(0, 10);
      const t = at.getTime();
      const [now, weekAgo, twoWeeksAgo] = [iso(t + 1), iso(t - 7 * DAY_MS), iso(t - 14 * DAY_MS)];
      // Views are kept per UTC day: this week is today and the six days before.
      const [tomorrow, sixDaysAgo, thirteenDaysAgo] = [
        day(t + DAY_MS),
        day(t - 6 * DAY_MS),
        day(t - 13 * DAY_MS),
      ];
      const weekly = async (count: (from: string, before: string) => Promise<number>) =>
        trend(await count(weekAgo, now), await count(twoWeeksAgo, weekAgo));

      const [byStatus, live, accounts, totals, newProjects, uploads, approvals, rejections, views, newUsers] =
        await Promise.all([
          projects.countByStatus(db, null),
          projects.liveCount(db),
          users.countsByRole(db),
          projects.viewAndDownloadTotals(db),
          weekly((from, before) => projects.createdBetween(db, from, before)),
          weekly((from, before) => deployments.createdBetween(db, from, before)),
          weekly((from, before) => reviewComments.countBetween(db, ['approve'], from, before)),
          weekly((from, before) => reviewComments.countBetween(db, ['reject', 'takedown'], from, before)),
          Promise.all([
            projectDailyViews.totalBetween(db, sixDaysAgo, tomorrow),
            projectDailyViews.totalBetween(db, thirteenDaysAgo, sixDaysAgo),
          ]).then(([a, b]) => trend(a, b)),
          weekly((from, before) => users.createdBetween(db, from, before)),
        ]);
      return {
        projects: {
          total: Object.values(byStatus).reduce((a, b) => a + b, 0),
          ...byStatus,
          live,
        },
        users: accounts,
        views: { total: totals.views },
        downloads: { total: totals.downloads },
        weekly: { projects: newProjects, uploads, approvals, rejections, views, users: newUsers },
        site_isolation: siteIsolation,
        generated_at: at.toISOString(),
      };
    },
  };
}
export type StatsService = ReturnType<typeof createStatsService>;
