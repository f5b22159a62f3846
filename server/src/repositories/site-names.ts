/**
 * Site names (docs/decisions/names.md): the `site_names` ledger, keyed by look-alike skeleton, and
 * the project's own `site_name`, always written together.
 */
import { SITE_NAME_HOLD_DAYS, SITE_NAME_RENAMES_MAX } from '@sitehall/contracts';
import { sql } from 'kysely';
import type { DB } from '../db/database.js';
import type { Dialect } from '../db/dialect.js';

export interface SiteNameRow {
  skeleton: string;
  name: string;
  project_id: number | null;
  retired_at: string | null;
}

/** The row holding a skeleton, if any (PostgreSQL: locked until the commit, for a claim). */
export async function bySkeleton(
  trx: DB,
  skeleton: string,
  lock?: Dialect,
): Promise<SiteNameRow | undefined> {
  let q = trx
    .selectFrom('site_names')
    .select(['skeleton', 'name', 'project_id', 'retired_at'])
    .where('skeleton', '=', skeleton);
  if (lock === 'postgres') q = q.forUpdate();
  return q.executeTakeFirst();
}

/** The row of a skeleton (if any) with its project's current name, for serving and checks. */
export async function lookup(
  db: DB,
  skeleton: string,
): Promise<(SiteNameRow & { current: string | null }) | undefined> {
  return db
    .selectFrom('site_names')
    .leftJoin('projects', 'projects.id', 'site_names.project_id')
    .select([
      'site_names.skeleton',
      'site_names.name',
      'site_names.project_id',
      'site_names.retired_at',
      'projects.site_name as current',
    ])
    .where('site_names.skeleton', '=', skeleton)
    .executeTakeFirst();
}

/** Gives a free (or expired) skeleton to a project: the expired holder's row goes first. */
export async function take(
  trx: DB,
  row: { skeleton: string; name: string; projectId: number; at: string },
  replaces: SiteNameRow | undefined,
): Promise<void> {
  if (replaces && replaces.project_id === row.projectId) {
    await trx
      .updateTable('site_names')
      .set({ name: row.name, retired_at: null })
      .where('skeleton', '=', row.skeleton)
      .execute();
  } else {
    if (replaces) await trx.deleteFrom('site_names').where('skeleton', '=', row.skeleton).execute();
    // A concurrent claim of the same skeleton fails here on the primary key (the caller's 409).
    await trx
      .insertInto('site_names')
      .values({
        skeleton: row.skeleton,
        name: row.name,
        project_id: row.projectId,
        // Kept when the project is deleted: the owner's names given up are counted by it.
        owner_id: sql<number>`(select owner_id from projects where id = ${row.projectId})`,
        created_at: row.at,
        retired_at: null,
      })
      .execute();
  }
  // The project's other names are given up now; they lead to it for the hold period.
  await trx
    .updateTable('site_names')
    .set({ retired_at: row.at })
    .where('project_id', '=', row.projectId)
    .where('retired_at', 'is', null)
    .where('skeleton', '!=', row.skeleton)
    .execute();
  await trx.updateTable('projects').set({ site_name: row.name }).where('id', '=', row.projectId).execute();
}

/**
 * The names the sites of `projectId`'s owner gave up since `since`, by renaming or by deleting the
 * project (each row names its owner, migration 036), the oldest's time, and the project's name now.
 */
export async function renamesOfOwner(
  trx: DB,
  projectId: number,
  since: string,
): Promise<{ n: number; oldest: string | null; current: string | null }> {
  const project = await trx
    .selectFrom('projects')
    .select(['owner_id', 'site_name'])
    .where('id', '=', projectId)
    .executeTakeFirst();
  if (!project) return { n: 0, oldest: null, current: null };
  const given = await givenUpBy(trx, project.owner_id, since);
  return { ...given, current: project.site_name };
}

async function givenUpBy(
  trx: DB,
  ownerId: number,
  since: string,
): Promise<{ n: number; oldest: string | null }> {
  const row = await trx
    .selectFrom('site_names')
    .select((eb) => [eb.fn.countAll<number | string>().as('n'), eb.fn.min('retired_at').as('oldest')])
    .where('owner_id', '=', ownerId)
    .where('retired_at', 'is not', null)
    .where('retired_at', '>', since)
    .executeTakeFirstOrThrow();
  return { n: Number(row.n), oldest: (row.oldest as string | null) ?? null };
}

/**
 * A project being deleted gives up its name: it leads nowhere, and stays held for the period, while
 * its owner has given up fewer than SITE_NAME_RENAMES_MAX names in the period. Past that the name
 * is free at once: an account that uploads, names and deletes sites in a loop holds no more names
 * than one that renames (docs/decisions/names.md "A deleted project's names count too").
 */
export async function retireOfProject(trx: DB, projectId: number, at: string): Promise<void> {
  const since = new Date(Date.parse(at) - SITE_NAME_HOLD_DAYS * 86_400_000).toISOString();
  const project = await trx
    .selectFrom('projects')
    .select('owner_id')
    .where('id', '=', projectId)
    .executeTakeFirst();
  const held =
    project !== undefined && (await givenUpBy(trx, project.owner_id, since)).n < SITE_NAME_RENAMES_MAX;
  if (held) {
    await trx
      .updateTable('site_names')
      .set({ retired_at: at })
      .where('project_id', '=', projectId)
      .where('retired_at', 'is', null)
      .execute();
  } else {
    await trx
      .deleteFrom('site_names')
      .where('project_id', '=', projectId)
      .where('retired_at', 'is', null)
      .execute();
  }
}

/**
 * Whether an error is a lost race for a name: the primary key of site_names or the unique
 * projects.site_name, on either engine.
 */
export function isNameRace(err: unknown): boolean {
  const e = (err ?? {}) as { code?: unknown; message?: unknown; constraint?: unknown };
  if (e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || e.code === 'SQLITE_CONSTRAINT_UNIQUE')
    return /site_names\.skeleton|projects\.site_name/.test(String(e.message));
  if (e.code === '23505')
    return e.constraint === 'site_names_pkey' || e.constraint === 'projects_site_name_unique';
  return false;
}
