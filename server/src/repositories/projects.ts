/** Queries over projects, deployments and their files. */
import type { ProjectStatus } from '@sitehall/contracts';
import { sql } from 'kysely';
import type { DB } from '../db/database.js';
import type { MigrationDialect } from '../db/migrations/helpers.js';
import type { DeploymentFileRow, DeploymentRow, ProjectRow } from '../db/types.js';

export interface ProjectWithOwner extends ProjectRow {
  owner_username: string;
  approved_by_username: string | null;
}

export type OwnerFilter = 'all' | 'pending' | 'approved' | 'rejected';

/** The statuses an owner's filter covers: "approved" means live, so it includes published. */
export function statusesOf(filter: OwnerFilter): ProjectStatus[] | null {
  switch (filter) {
    case 'pending':
      return ['pending'];
    case 'approved':
      return ['approved', 'published'];
    case 'rejected':
      return ['rejected'];
    default:
      return null;
  }
}

export function createProjectsRepository(db: DB, dialect: MigrationDialect) {
  const withOwner = (trx: DB = db) =>
    trx
      .selectFrom('projects')
      .innerJoin('users as owner', 'owner.id', 'projects.owner_id')
      .leftJoin('users as approver', 'approver.id', 'projects.approved_by')
      .selectAll('projects')
      .select(['owner.username as owner_username', 'approver.username as approved_by_username']);

  return {
    byId(id: number, trx: DB = db): Promise<ProjectWithOwner | undefined> {
      return withOwner(trx).where('projects.id', '=', id).executeTakeFirst();
    },

    /**
     * The project, read inside `trx` to decide a change of its state: on PostgreSQL its row is
     * locked until the commit, so a second decision (or a delete) waits and then sees the first's
     * result instead of passing the same check. SQLite's transactions begin IMMEDIATE: one
     * runs at a time.
     */
    byIdForChange(id: number, trx: DB): Promise<ProjectWithOwner | undefined> {
      const q = withOwner(trx).where('projects.id', '=', id);
      return (dialect === 'postgres' ? q.forUpdate('projects') : q).executeTakeFirst();
    },

    async listByOwner(ownerId: number, filter: OwnerFilter, page: number, pageSize: number) {
      const statuses = statusesOf(filter);
      let q = withOwner().where('projects.owner_id', '=', ownerId);
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
    async countByStatus(ownerId: number | null): Promise<Record<ProjectStatus, number>> {
      let q = db
        .selectFrom('projects')
        .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
        .groupBy('status');
      if (ownerId !== null) q = q.where('owner_id', '=', ownerId);
      const counts: Record<ProjectStatus, number> = { pending: 0, approved: 0, published: 0, rejected: 0 };
      for (const r of await q.execute()) counts[r.status] = Number(r.n);
      return counts;
    },

    deployment(id: number, trx: DB = db): Promise<DeploymentRow | undefined> {
      return trx.selectFrom('deployments').selectAll().where('id', '=', id).executeTakeFirst();
    },

    deploymentsOf(projectId: number): Promise<(DeploymentRow & { reviewer: string | null })[]> {
      return db
        .selectFrom('deployments')
        .leftJoin('users', 'users.id', 'deployments.reviewed_by')
        .selectAll('deployments')
        .select('users.username as reviewer')
        .where('project_id', '=', projectId)
        .orderBy('version', 'desc')
        .execute();
    },

    /** Deployments of many projects at once (list pages), keyed by id. */
    async deploymentsByIds(ids: number[]): Promise<Map<number, DeploymentRow>> {
      if (ids.length === 0) return new Map();
      const rows = await db.selectFrom('deployments').selectAll().where('id', 'in', ids).execute();
      return new Map(rows.map((r) => [r.id, r]));
    },

    filesOf(deploymentId: number, trx: DB = db): Promise<DeploymentFileRow[]> {
      return trx
        .selectFrom('deployment_files')
        .selectAll()
        .where('deployment_id', '=', deploymentId)
        .orderBy('path')
        .execute();
    },

    reviewCommentsOf(projectId: number) {
      return db
        .selectFrom('review_comments')
        .leftJoin('users', 'users.id', 'review_comments.actor_id')
        .leftJoin('deployments', 'deployments.id', 'review_comments.deployment_id')
        .select([
          'review_comments.id',
          'review_comments.action',
          'review_comments.comment',
          'review_comments.created_at',
          'users.username as reviewer',
          'deployments.version as deployment_version',
        ])
        .where('review_comments.project_id', '=', projectId)
        .orderBy('review_comments.id', 'desc')
        .execute();
    },

    async nextVersion(projectId: number, trx: DB): Promise<number> {
      const row = await trx
        .selectFrom('deployments')
        .select((eb) => eb.fn.max('version').as('v'))
        .where('project_id', '=', projectId)
        .executeTakeFirst();
      return Number(row?.v ?? 0) + 1;
    },

    /** Of these hashes, the ones no deployment file references any more. */
    async unreferenced(hashes: string[], trx: DB = db): Promise<string[]> {
      const unique = [...new Set(hashes)];
      const referenced = new Set<string>();
      for (let i = 0; i < unique.length; i += 500) {
        const chunk = unique.slice(i, i + 500);
        const rows = await trx
          .selectFrom('deployment_files')
          .select('sha256')
          .distinct()
          .where('sha256', 'in', chunk)
          .execute();
        for (const r of rows) referenced.add(r.sha256);
        // A version's rendered pictures (docs/render.md) live as long as the version.
        const pictures = await trx
          .selectFrom('deployments')
          .select(['thumbnail_sha256', 'thumbnail_small_sha256'])
          .where((eb) =>
            eb.or([eb('thumbnail_sha256', 'in', chunk), eb('thumbnail_small_sha256', 'in', chunk)]),
          )
          .execute();
        for (const r of pictures) {
          if (r.thumbnail_sha256) referenced.add(r.thumbnail_sha256);
          if (r.thumbnail_small_sha256) referenced.add(r.thumbnail_small_sha256);
        }
      }
      return unique.filter((h) => !referenced.has(h));
    },

    /** Every hash of a project's files (before deleting it). */
    async hashesOfProject(projectId: number, trx: DB = db): Promise<string[]> {
      const rows = await trx
        .selectFrom('deployment_files')
        .innerJoin('deployments', 'deployments.id', 'deployment_files.deployment_id')
        .select('deployment_files.sha256')
        .distinct()
        .where('deployments.project_id', '=', projectId)
        .execute();
      return rows.map((r) => r.sha256);
    },

    async isReferenced(sha256: string): Promise<boolean> {
      const row = await db
        .selectFrom('deployment_files')
        .select(sql<number>`1`.as('x'))
        .where('sha256', '=', sha256)
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },
  };
}
export type ProjectsRepository = ReturnType<typeof createProjectsRepository>;
