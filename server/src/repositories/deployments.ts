/**
 * The deployments table: one row per uploaded version of a project. Functions take the executor
 * (the database or the caller's transaction): services own the transaction.
 */
import type { Insertable } from 'kysely';
import type { DB } from '../db/database.js';
import type { DeploymentRow, DeploymentsTable } from '../db/types.js';
import { withContent } from './deployment-files.js';

/** Status, entry and dates of one deployment (what serving a site needs), or undefined. */
export function servingFacts(db: DB, id: number) {
  return db
    .selectFrom('deployments')
    .innerJoin('projects', 'projects.id', 'deployments.project_id')
    .select([
      'deployments.id',
      'deployments.project_id',
      'deployments.entry_file',
      'deployments.reviewed_at',
      'deployments.created_at',
      'deployments.site_rules',
      'projects.spa_fallback',
      'projects.clean_urls',
      'projects.site_name',
    ])
    .where('deployments.id', '=', id)
    .executeTakeFirst();
}

/** A deployment's status, or undefined when there is no such deployment. */
export async function statusOf(db: DB, id: number) {
  const row = await db.selectFrom('deployments').select('status').where('id', '=', id).executeTakeFirst();
  return row?.status;
}

export async function insert(trx: DB, row: Insertable<DeploymentsTable>): Promise<number> {
  const d = await trx.insertInto('deployments').values(row).returning('id').executeTakeFirstOrThrow();
  return d.id;
}

/** A pending version nobody reviewed yet is replaced by a newer one. */
export async function supersedePending(trx: DB, projectId: number): Promise<void> {
  await trx
    .updateTable('deployments')
    .set({ status: 'superseded' })
    .where('project_id', '=', projectId)
    .where('status', '=', 'pending')
    .execute();
}

/**
 * Records a review decision on a deployment; with `onlyIf`, only while its status is one of
 * those.
 */
export async function markReviewed(
  trx: DB,
  id: number,
  review: {
    status: 'approved' | 'rejected';
    at: string;
    by: number;
    comment: string | null;
    onlyIf?: Array<'pending' | 'rejected'>;
  },
): Promise<void> {
  let q = trx
    .updateTable('deployments')
    .set({
      status: review.status,
      reviewed_at: review.at,
      reviewed_by: review.by,
      review_comment: review.comment,
    })
    .where('id', '=', id);
  if (review.onlyIf) q = q.where('status', 'in', review.onlyIf);
  await q.execute();
}

export function byId(db: DB, id: number): Promise<DeploymentRow | undefined> {
  return db.selectFrom('deployments').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Every version of a project, the newest first, with its reviewer's name. */
export function ofProject(
  db: DB,
  projectId: number,
): Promise<(DeploymentRow & { reviewer: string | null })[]> {
  return db
    .selectFrom('deployments')
    .leftJoin('users', 'users.id', 'deployments.reviewed_by')
    .selectAll('deployments')
    .select('users.username as reviewer')
    .where('project_id', '=', projectId)
    .orderBy('version', 'desc')
    .execute();
}

/** Deployments of many projects at once (list pages), keyed by id. */
export async function byIds(db: DB, ids: number[]): Promise<Map<number, DeploymentRow>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('deployments').selectAll().where('id', 'in', ids).execute();
  return new Map(rows.map((r) => [r.id, r]));
}

export async function nextVersion(trx: DB, projectId: number): Promise<number> {
  const row = await trx
    .selectFrom('deployments')
    .select((eb) => eb.fn.max('version').as('v'))
    .where('project_id', '=', projectId)
    .executeTakeFirst();
  return Number(row?.v ?? 0) + 1;
}

/** Stores the check of a deployment that had none (made before the check existed). */
export async function saveContentCheck(db: DB, id: number, json: string, risk: number): Promise<void> {
  await db
    .updateTable('deployments')
    .set({ content_check: json, content_risk: risk })
    .where('id', '=', id)
    .where('content_check', 'is', null)
    .execute();
}

/** Replaces a deployment's stored check (a render's findings merged into it). */
export async function replaceContentCheck(db: DB, id: number, json: string, risk: number): Promise<void> {
  await db
    .updateTable('deployments')
    .set({ content_check: json, content_risk: risk })
    .where('id', '=', id)
    .execute();
}

/** Deployments uploaded in [from, before) (ISO timestamps). */
export async function createdBetween(db: DB, from: string, before: string): Promise<number> {
  const row = await db
    .selectFrom('deployments')
    .where('created_at', '>=', from)
    .where('created_at', '<', before)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * The stored size of every version of every project the account owns, whatever its status
 * (docs/decisions/uploads.md "Storage quota and upload rate").
 */
export async function usedBytes(db: DB, ownerId: number): Promise<number> {
  const row = await db
    .selectFrom('projects')
    .innerJoin('deployments', 'deployments.project_id', 'projects.id')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('deployments.total_size'), eb.lit(0)).as('used'))
    .where('projects.owner_id', '=', ownerId)
    .executeTakeFirstOrThrow();
  return Number(row.used);
}

/** The used space of several accounts in one query (those without versions are left out). */
export async function usedBytesByOwner(db: DB, ownerIds: readonly number[]): Promise<Map<number, number>> {
  const used = new Map<number, number>();
  if (ownerIds.length === 0) return used;
  const rows = await db
    .selectFrom('projects')
    .innerJoin('deployments', 'deployments.project_id', 'projects.id')
    .select((eb) => ['projects.owner_id', eb.fn.sum<number>('deployments.total_size').as('used')])
    .where('projects.owner_id', 'in', [...ownerIds])
    .groupBy('projects.owner_id')
    .execute();
  for (const r of rows) used.set(r.owner_id, Number(r.used));
  return used;
}

/** Hashes per statement: well under both engines' bound-parameter limits. */
const HASH_CHUNK = 500;

/**
 * Which of these contents the account holds in its own versions (any status), so that a digest
 * deploy skips only what the account could already read (docs/decisions/deploys.md "API tokens and digest
 * deploys").
 */
export async function hashesOwnedBy(
  db: DB,
  ownerId: number,
  hashes: readonly string[],
): Promise<Set<string>> {
  const owned = new Set<string>();
  const unique = [...new Set(hashes)];
  for (let i = 0; i < unique.length; i += HASH_CHUNK) {
    const rows = await db
      .selectFrom('deployment_files')
      .innerJoin('deployments', 'deployments.id', 'deployment_files.deployment_id')
      .innerJoin('projects', 'projects.id', 'deployments.project_id')
      .select('deployment_files.sha256')
      .distinct()
      .where('projects.owner_id', '=', ownerId)
      .where(withContent('deployment_files.sha256', unique.slice(i, i + HASH_CHUNK)))
      .execute();
    for (const r of rows) owned.add(r.sha256);
  }
  return owned;
}
