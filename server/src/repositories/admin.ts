/** Queries of the admin console: the review lists, the dashboard's figures, a project's views. */
import type { AdminProjectCounts, AdminTab, ContentRiskFilter } from '@sitehall/contracts';
import { sql } from 'kysely';
import { LEVEL_RANK } from '../content-check/report.js';
import type { DB } from '../db/database.js';
import { likePattern } from '../db/like.js';
import type { ProjectWithOwner } from './projects.js';

export function createAdminRepository(db: DB) {
  const withOwner = () =>
    db
      .selectFrom('projects')
      .innerJoin('users as owner', 'owner.id', 'projects.owner_id')
      .leftJoin('users as approver', 'approver.id', 'projects.approved_by')
      .selectAll('projects')
      .select(['owner.username as owner_username', 'approver.username as approved_by_username']);

  /** Name, description and owner, lower-cased in search_text: Chinese substrings of any length match. */
  const matching = (search: string) =>
    sql<boolean>`projects.search_text like ${likePattern(search)} escape '\\'`;

  return {
    async listProjects(q: {
      status: AdminTab;
      search?: string;
      sort: 'newest' | 'oldest' | 'risk';
      /** The newest version's check at this risk level, or never checked. */
      risk?: ContentRiskFilter;
      page: number;
      pageSize: number;
    }): Promise<{ rows: ProjectWithOwner[]; total: number }> {
      const status = q.status === 'all' ? null : q.status;
      // The newest version's risk rank (deployments.content_risk: 0 clean … 4 high, null unchecked).
      const risk = q.risk === undefined ? undefined : q.risk === 'unchecked' ? null : LEVEL_RANK[q.risk];
      const byRisk = q.risk !== undefined || q.sort === 'risk';
      const list = withOwner()
        .leftJoin('deployments as newest', 'newest.id', 'projects.latest_deployment_id')
        .$if(q.search !== undefined, (qb) => qb.where(matching(q.search!)))
        .$if(status !== null, (qb) => qb.where('projects.status', '=', status!))
        .$if(risk !== undefined, (qb) =>
          risk === null
            ? qb.where('newest.content_risk', 'is', null)
            : qb.where('newest.content_risk', '=', risk!),
        );
      const count = db
        .selectFrom('projects')
        .$if(byRisk, (qb) =>
          qb.leftJoin('deployments as newest', 'newest.id', 'projects.latest_deployment_id'),
        )
        .$if(q.search !== undefined, (qb) => qb.where(matching(q.search!)))
        .$if(status !== null, (qb) => qb.where('projects.status', '=', status!))
        .$if(risk !== undefined, (qb) =>
          risk === null
            ? qb.where(sql.ref('newest.content_risk'), 'is', null)
            : qb.where(sql.ref('newest.content_risk'), '=', risk!),
        );
      const direction = q.sort === 'oldest' ? 'asc' : 'desc';
      const rows = await list
        // Highest risk first; unchecked versions (null) after clean ones on both engines.
        .$if(q.sort === 'risk', (qb) => qb.orderBy(sql`coalesce(newest.content_risk, -1)`, 'desc'))
        .orderBy('projects.created_at', direction)
        .orderBy('projects.id', direction)
        .limit(q.pageSize)
        .offset((q.page - 1) * q.pageSize)
        .execute();
      const total = await count.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      return { rows, total: Number(total.n) };
    },

    /** The tabs' counts, with the search applied. */
    async countsByStatus(search?: string): Promise<AdminProjectCounts> {
      const rows = await db
        .selectFrom('projects')
        .$if(search !== undefined, (qb) => qb.where(matching(search!)))
        .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
        .groupBy('status')
        .execute();
      const counts: AdminProjectCounts = { all: 0, pending: 0, approved: 0, published: 0, rejected: 0 };
      for (const r of rows) {
        counts[r.status] = Number(r.n);
        counts.all += Number(r.n);
      }
      return counts;
    },

    /** Projects waiting for review, the longest-waiting first (by the upload of their newest version). */
    async pendingOldestFirst(page: number, pageSize: number) {
      const rows = await withOwner()
        .innerJoin('deployments as latest', 'latest.id', 'projects.latest_deployment_id')
        .select('latest.created_at as pending_since')
        .where('projects.status', '=', 'pending')
        .orderBy('latest.created_at', 'asc')
        .orderBy('projects.id', 'asc')
        .limit(pageSize)
        .offset((page - 1) * pageSize)
        .execute();
      const total = await db
        .selectFrom('projects')
        .where('status', '=', 'pending')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return { rows, total: Number(total.n) };
    },

    /** The first `n` paths (by name) of each deployment, in one query. */
    async firstPaths(deploymentIds: number[], n: number): Promise<Map<number, string[]>> {
      const out = new Map<number, string[]>();
      if (deploymentIds.length === 0) return out;
      const ranked = db
        .selectFrom('deployment_files')
        .select([
          'deployment_id',
          'path',
          sql<number>`row_number() over (partition by deployment_id order by path)`.as('rank'),
        ])
        .where('deployment_id', 'in', deploymentIds)
        .as('ranked');
      const rows = await db
        .selectFrom(ranked)
        .select(['ranked.deployment_id', 'ranked.path'])
        .where('ranked.rank', '<=', n)
        .orderBy('ranked.deployment_id')
        .orderBy('ranked.rank')
        .execute();
      for (const r of rows) {
        const list = out.get(r.deployment_id) ?? [];
        list.push(r.path);
        out.set(r.deployment_id, list);
      }
      return out;
    },

    /** Stores the check of a deployment that had none (made before the check existed). */
    async saveContentCheck(deploymentId: number, json: string, risk: number): Promise<void> {
      await db
        .updateTable('deployments')
        .set({ content_check: json, content_risk: risk })
        .where('id', '=', deploymentId)
        .where('content_check', 'is', null)
        .execute();
    },

    /** Views per UTC day of one project from `fromDay` (YYYY-MM-DD) on. */
    dailyViews(projectId: number, fromDay: string) {
      return db
        .selectFrom('project_daily_views')
        .select(['day', 'views'])
        .where('project_id', '=', projectId)
        .where('day', '>=', fromDay)
        .orderBy('day')
        .execute();
    },

    async liveProjectCount(): Promise<number> {
      const row = await db
        .selectFrom('projects')
        .where('live_deployment_id', 'is not', null)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    async userCounts(): Promise<{ total: number; admins: number; disabled: number }> {
      const row = await db
        .selectFrom('users')
        .select([
          (eb) => eb.fn.countAll<number>().as('total'),
          sql<number>`coalesce(sum(case when role = 'admin' then 1 else 0 end), 0)`.as('admins'),
          sql<number>`coalesce(sum(disabled), 0)`.as('disabled'),
        ])
        .executeTakeFirstOrThrow();
      return { total: Number(row.total), admins: Number(row.admins), disabled: Number(row.disabled) };
    },

    async viewAndDownloadTotals(): Promise<{ views: number; downloads: number }> {
      const row = await db
        .selectFrom('projects')
        .select([
          sql<number>`coalesce(sum(view_count), 0)`.as('views'),
          sql<number>`coalesce(sum(download_count), 0)`.as('downloads'),
        ])
        .executeTakeFirstOrThrow();
      return { views: Number(row.views), downloads: Number(row.downloads) };
    },

    /** Rows of a table created in [from, before) (ISO timestamps). */
    async createdBetween(table: 'projects' | 'deployments' | 'users', from: string, before: string) {
      const row = await db
        .selectFrom(table)
        .where('created_at', '>=', from)
        .where('created_at', '<', before)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    /** Review decisions of these actions made in [from, before). */
    async decisionsBetween(actions: string[], from: string, before: string) {
      const row = await db
        .selectFrom('review_comments')
        .where('action', 'in', actions)
        .where('created_at', '>=', from)
        .where('created_at', '<', before)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    /** Site views over all projects on UTC days in [fromDay, beforeDay). */
    async viewsBetweenDays(fromDay: string, beforeDay: string) {
      const row = await db
        .selectFrom('project_daily_views')
        .where('day', '>=', fromDay)
        .where('day', '<', beforeDay)
        .select(sql<number>`coalesce(sum(views), 0)`.as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}
export type AdminRepository = ReturnType<typeof createAdminRepository>;
