/** The projects table: one row per site, with its owner's name on reads. */
import {
  ADMIN_TABS,
  type AdminProjectCounts,
  type AdminTab,
  type ContentRiskFilter,
  countOfFilter,
  type OwnerFilter,
  type ProjectStatus,
  statusesOfFilter,
} from '@sitehall/contracts';
import { type Insertable, sql, type Updateable } from 'kysely';
import type { DB } from '../db/database.js';
import type { Dialect } from '../db/dialect.js';
import { likePattern } from '../db/like.js';
import type { ProjectRow, ProjectsTable } from '../db/types.js';
import { LEVEL_RANK } from '../domain/content-risk.js';

export interface ProjectWithOwner extends ProjectRow {
  owner_username: string;
  approved_by_username: string | null;
}

// ---- Writes and single-column reads: functions of the executor (the caller's transaction) ----

export async function insert(trx: DB, row: Insertable<ProjectsTable>): Promise<number> {
  const p = await trx.insertInto('projects').values(row).returning('id').executeTakeFirstOrThrow();
  return p.id;
}

export type ProjectPatch = Updateable<ProjectsTable>;

export async function update(trx: DB, id: number, patch: ProjectPatch): Promise<void> {
  await trx.updateTable('projects').set(patch).where('id', '=', id).execute();
}

/** Deletes a project (its versions and files go with it); false when it was already gone. */
export async function remove(trx: DB, id: number): Promise<boolean> {
  const gone = await trx.deleteFrom('projects').where('id', '=', id).executeTakeFirst();
  return Number(gone.numDeletedRows) > 0;
}

export async function countDownload(db: DB, id: number): Promise<void> {
  await db
    .updateTable('projects')
    .set((eb) => ({ download_count: eb('download_count', '+', 1) }))
    .where('id', '=', id)
    .execute();
}

/** Adds n views to a project's total, made by the database; false when the project is gone. */
export async function addViews(trx: DB, id: number, n: number): Promise<boolean> {
  const updated = await trx
    .updateTable('projects')
    .set({ view_count: sql`view_count + ${n}` })
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) > 0;
}

/** Whether the project still exists (a batch of counts for a deleted one is dropped). */
export async function exists(trx: DB, id: number): Promise<boolean> {
  return (
    (await trx.selectFrom('projects').select('id').where('id', '=', id).executeTakeFirst()) !== undefined
  );
}

/** The live deployment's id of a project: null when not live, undefined when there is no project. */
export async function livePointer(db: DB, id: number): Promise<number | null | undefined> {
  const p = await db
    .selectFrom('projects')
    .select('live_deployment_id')
    .where('id', '=', id)
    .executeTakeFirst();
  return p ? p.live_deployment_id : undefined;
}

export function createProjectsRepository(
  dialect: Dialect,
  /**
   * The gram bloom of a search text's own lines (search/bloom.ts ownBloom, given by the wiring:
   * repositories import no search module). On PostgreSQL a row's bloom (migration 038) is then
   * written in the statement that writes its search text, so the index finds it written and
   * leaves the row alone: written by the index after the listing's own update, it left each
   * listed project a second row version and a dead entry in each of the three order indexes that
   * hold the bloom (`showcase_latest` 318 MB at 1,000,000 projects against 106 compacted;
   * docs/benchmarks.md "Walks ahead, and the bits weighed"). Without it the index writes every bloom.
   */
  ownBloom?: (searchText: string) => string,
) {
  const withBloom = <T extends { search_text?: string | undefined }>(row: T): T =>
    dialect === 'postgres' && ownBloom && row.search_text !== undefined
      ? { ...row, gram_bloom: ownBloom(row.search_text) }
      : row;
  const withOwner = (trx: DB) =>
    trx
      .selectFrom('projects')
      .innerJoin('users as owner', 'owner.id', 'projects.owner_id')
      .leftJoin('users as approver', 'approver.id', 'projects.approved_by')
      .selectAll('projects')
      .select(['owner.username as owner_username', 'approver.username as approved_by_username']);

  /**
   * Name, description, site name and owner, lower-cased in search_text: Chinese substrings of any
   * length match, and a search of several words (split at white space) finds the projects holding
   * every word, each anywhere, as the showcase's does (docs/decisions/serving.md "Several words").
   */
  const matching = (search: string) => {
    const words = [...new Set(search.trim().split(/\s+/).filter(Boolean))];
    const like = (word: string) => sql<boolean>`projects.search_text like ${likePattern(word)} escape '\\'`;
    return words.length === 0 ? like(search) : sql<boolean>`(${sql.join(words.map(like), sql` and `)})`;
  };

  return {
    insert: (trx: DB, row: Insertable<ProjectsTable>) => insert(trx, withBloom(row)),
    update: (trx: DB, id: number, patch: ProjectPatch) => update(trx, id, withBloom(patch)),
    remove,
    countDownload,

    /**
     * Whether the project still exists, read inside `trx` before adding a version to it: on
     * PostgreSQL its row is locked until the commit (FOR NO KEY UPDATE), so a delete waits for the
     * upload; rows that only refer to the project do not (docs/decisions/instances.md "Row locks").
     */
    async existsForUpload(trx: DB, id: number): Promise<boolean> {
      let q = trx.selectFrom('projects').select('id').where('id', '=', id);
      if (dialect === 'postgres') q = q.forNoKeyUpdate();
      return (await q.executeTakeFirst()) !== undefined;
    },

    byId(trx: DB, id: number): Promise<ProjectWithOwner | undefined> {
      return withOwner(trx).where('projects.id', '=', id).executeTakeFirst();
    },

    /**
     * The project, read inside `trx` to decide a change of its state: on PostgreSQL its row is
     * locked until the commit (FOR NO KEY UPDATE), so a second decision (or a delete) waits and then
     * sees the first's result instead of passing the same check; a row that only refers to the
     * project (a deploy, a notice) is written meanwhile (docs/decisions/instances.md "Row locks").
     * SQLite's transactions begin IMMEDIATE: one runs at a time.
     */
    byIdForChange(trx: DB, id: number): Promise<ProjectWithOwner | undefined> {
      const q = withOwner(trx).where('projects.id', '=', id);
      return (dialect === 'postgres' ? q.forNoKeyUpdate('projects') : q).executeTakeFirst();
    },

    async listByOwner(db: DB, ownerId: number, filter: OwnerFilter, page: number, pageSize: number) {
      const statuses = statusesOfFilter(filter);
      let q = withOwner(db).where('projects.owner_id', '=', ownerId);
      if (statuses) q = q.where('projects.status', 'in', statuses);
      const rows = await q
        .orderBy('projects.created_at', 'desc')
        .orderBy('projects.id', 'desc')
        .limit(pageSize)
        .offset((page - 1) * pageSize)
        .execute();
      let c = db.selectFrom('projects').where('owner_id', '=', ownerId);
      if (statuses) c = c.where('status', 'in', statuses);
      const total = await c.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      return { rows, total: Number(total.n) };
    },

    /** Project counts by status for one owner (or everyone when ownerId is null). */
    async countByStatus(db: DB, ownerId: number | null): Promise<Record<ProjectStatus, number>> {
      let q = db
        .selectFrom('projects')
        .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
        .groupBy('status');
      if (ownerId !== null) q = q.where('owner_id', '=', ownerId);
      const counts: Record<ProjectStatus, number> = {
        pending: 0,
        approved: 0,
        published: 0,
        rejected: 0,
        taken_down: 0,
      };
      for (const r of await q.execute()) counts[r.status] = Number(r.n);
      return counts;
    },

    /** Every project (the admin list), filtered by status, search and the newest version's risk. */
    async listAll(
      db: DB,
      q: {
        status: AdminTab;
        search?: string;
        sort: 'newest' | 'oldest' | 'risk';
        /** The newest version's check at this risk level, or never checked. */
        risk?: ContentRiskFilter;
        page: number;
        pageSize: number;
      },
    ): Promise<{ rows: ProjectWithOwner[]; total: number }> {
      // 已发布 holds the featured ones, as the owner's filter and the dashboards count them.
      const statuses = statusesOfFilter(q.status);
      // The newest version's risk rank (deployments.content_risk: 0 clean … 4 high, null unchecked).
      const risk = q.risk === undefined ? undefined : q.risk === 'unchecked' ? null : LEVEL_RANK[q.risk];
      const byRisk = q.risk !== undefined || q.sort === 'risk';
      const list = withOwner(db)
        .leftJoin('deployments as newest', 'newest.id', 'projects.latest_deployment_id')
        .$if(q.search !== undefined, (qb) => qb.where(matching(q.search!)))
        .$if(statuses !== null, (qb) => qb.where('projects.status', 'in', statuses!))
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
        .$if(statuses !== null, (qb) => qb.where('projects.status', 'in', statuses!))
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

    /** The admin list's tab counts, with the search applied: each tab counts what it lists. */
    async countsMatching(db: DB, search?: string): Promise<AdminProjectCounts> {
      const rows = await db
        .selectFrom('projects')
        .$if(search !== undefined, (qb) => qb.where(matching(search!)))
        .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
        .groupBy('status')
        .execute();
      const byStatus: Record<ProjectStatus, number> = {
        pending: 0,
        approved: 0,
        published: 0,
        rejected: 0,
        taken_down: 0,
      };
      for (const r of rows) byStatus[r.status] = Number(r.n);
      const counts = {} as AdminProjectCounts;
      for (const tab of ADMIN_TABS) counts[tab] = countOfFilter(byStatus, tab);
      return counts;
    },

    /** Projects waiting for review, the longest-waiting first (by the upload of their newest version). */
    async pendingOldestFirst(db: DB, page: number, pageSize: number) {
      const rows = await withOwner(db)
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

    async liveCount(db: DB): Promise<number> {
      const row = await db
        .selectFrom('projects')
        .where('live_deployment_id', 'is not', null)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    /** Views and downloads over all projects. */
    async viewAndDownloadTotals(db: DB): Promise<{ views: number; downloads: number }> {
      const row = await db
        .selectFrom('projects')
        .select([
          sql<number>`coalesce(sum(view_count), 0)`.as('views'),
          sql<number>`coalesce(sum(download_count), 0)`.as('downloads'),
        ])
        .executeTakeFirstOrThrow();
      return { views: Number(row.views), downloads: Number(row.downloads) };
    },

    /** Projects created in [from, before) (ISO timestamps). */
    async createdBetween(db: DB, from: string, before: string): Promise<number> {
      const row = await db
        .selectFrom('projects')
        .where('created_at', '>=', from)
        .where('created_at', '<', before)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}
export type ProjectsRepository = ReturnType<typeof createProjectsRepository>;
