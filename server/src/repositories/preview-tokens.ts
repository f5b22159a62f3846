/** The preview_tokens table: preview links, stored hashed, each bound to one deployment. */
import type { DeploymentStatus } from '@sitehall/contracts';
import type { Insertable } from 'kysely';
import type { DB } from '../db/database.js';
import type { PreviewTokensTable } from '../db/types.js';

/** Revokes the links one person made for a project. */
export async function revokeOf(trx: DB, projectId: number, createdBy: number): Promise<void> {
  await trx
    .updateTable('preview_tokens')
    .set({ revoked: 1 })
    .where('project_id', '=', projectId)
    .where('created_by', '=', createdBy)
    .where('revoked', '=', 0)
    .execute();
}

export async function insert(trx: DB, row: Insertable<PreviewTokensTable>): Promise<void> {
  await trx.insertInto('preview_tokens').values(row).execute();
}

/**
 * The deployment and project of an unrevoked token unexpired at `at`, whose deployment has one of
 * `statuses` and whose maker's account is enabled.
 */
export function findUsable(db: DB, tokenHash: string, at: string, statuses: DeploymentStatus[]) {
  return (
    db
      .selectFrom('preview_tokens as t')
      .innerJoin('deployments as d', 'd.id', 't.deployment_id')
      .innerJoin('users as u', 'u.id', 't.created_by')
      .innerJoin('projects as p', 'p.id', 't.project_id')
      .select(['t.deployment_id', 't.project_id'])
      .where('t.token_hash', '=', tokenHash)
      .where('t.revoked', '=', 0)
      .where('t.expires_at', '>', at)
      .where('d.status', 'in', statuses)
      // A takedown is a decision on the whole project: no link of it opens. A version replaced
      // while it waited was never reviewed: its link opens only while the project still waits for
      // a decision, not after a newer version was approved or rejected (services/previews.ts).
      .where('p.status', '!=', 'taken_down')
      .where((eb) => eb.or([eb('d.status', '!=', 'superseded'), eb('p.status', '=', 'pending')]))
      .where('u.disabled', '=', 0)
      // A non-admin's link to a version not yet approved stops once its check rates it high (the
      // render's findings come after the upload): services/previews.ts.
      .where((eb) =>
        eb.or([
          eb('u.role', '=', 'admin'),
          eb('d.status', '=', 'approved'),
          eb('d.content_risk', 'is', null),
          eb('d.content_risk', '<', 4),
        ]),
      )
      .executeTakeFirst()
  );
}

/** Deletes the tokens expired at `at` or revoked; returns how many. */
export async function deleteDead(db: DB, at: string): Promise<number> {
  const r = await db
    .deleteFrom('preview_tokens')
    .where((eb) => eb.or([eb('expires_at', '<=', at), eb('revoked', '=', 1)]))
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}
