import { type Insertable, sql } from 'kysely';
import type { DB } from '../db/database.js';
import type { Dialect as MigrationDialect } from '../db/dialect.js';
import type { DeployRow, DeploysTable } from '../db/types.js';
import type { BaseDeploymentFile } from './deployment-files.js';
import { hashesOwnedBy } from './deployments.js';

/**
 * Bytes the account's unfinished deploys hold (received, or reserved by a PUT under way): they
 * count in its used space (services/quota.ts). A deploy counts against its project's owner, or
 * against its starter for a new project.
 */
export async function heldBytes(db: DB, ownerId: number): Promise<number> {
  const row = await db
    .selectFrom('deploys')
    .leftJoin('projects', 'projects.id', 'deploys.project_id')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('deploys.received_bytes'), eb.lit(0)).as('held'))
    .where((eb) =>
      eb.or([
        eb.and([eb('deploys.project_id', 'is', null), eb('deploys.user_id', '=', ownerId)]),
        eb('projects.owner_id', '=', ownerId),
      ]),
    )
    .executeTakeFirstOrThrow();
  return Number(row.held);
}

/** The same for several accounts in one query (those holding nothing are left out). */
export async function heldBytesByOwner(db: DB, ownerIds: readonly number[]): Promise<Map<number, number>> {
  const held = new Map<number, number>();
  if (ownerIds.length === 0) return held;
  const owner = sql<number>`coalesce(projects.owner_id, deploys.user_id)`;
  const rows = await db
    .selectFrom('deploys')
    .leftJoin('projects', 'projects.id', 'deploys.project_id')
    .select([owner.as('owner_id'), (eb) => eb.fn.sum<number>('deploys.received_bytes').as('held')])
    .where(owner, 'in', [...ownerIds])
    .groupBy(owner)
    .execute();
  for (const r of rows) held.set(Number(r.owner_id), Number(r.held));
  return held;
}

/** An account's unexpired deploys, and when the first of them expires. */
async function openOf(
  db: DB,
  userId: number,
  at: string,
): Promise<{ n: number; firstExpiry: string | null }> {
  const row = await db
    .selectFrom('deploys')
    .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.min<string>('expires_at').as('first')])
    .where('user_id', '=', userId)
    .where('expires_at', '>', at)
    .executeTakeFirstOrThrow();
  return { n: Number(row.n), firstExpiry: row.first ?? null };
}

/** The row id of a project's version by its number; undefined when the project has no such version. */
async function versionIdOf(db: DB, projectId: number, version: number): Promise<number | undefined> {
  const row = await db
    .selectFrom('deployments')
    .select('id')
    .where('project_id', '=', projectId)
    .where('version', '=', version)
    .executeTakeFirst();
  return row?.id;
}

/**
 * A version's files (path, SHA-256, size, type, extension, download-only flag) in path order,
 * as a base-version deploy composes on them (docs/decisions/deploys.md "Base-version deploys").
 * The order is JavaScript's string order, as the upload pipeline sorts a version's files
 * (ingest/index.ts buildResult), on both engines: the composed file set's order decides the
 * order of a base deploy's findings and which refusal is told first, PostgreSQL's `order by`
 * follows its collation, and the rows an instance keeps from its own commit
 * (services/deploys.ts) are in the pipeline's order.
 */
async function filesOfVersion(db: DB, deploymentId: number): Promise<BaseDeploymentFile[]> {
  const files = await db
    .selectFrom('deployment_files')
    .select(['path', 'sha256', 'size', 'mime_type', 'extension', 'download_only'])
    .where('deployment_id', '=', deploymentId)
    // Already in order on SQLite (the unique index's), so the sort below has little to do.
    .orderBy('path')
    .execute();
  return files
    .map((f) => ({ ...f, size: Number(f.size), download_only: Number(f.download_only) }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

export function createDeploysRepository(dialect: MigrationDialect) {
  return {
    /**
     * Inserts the deploy unless its starter already has `max` open (then answers how many, and
     * when the first ends). Counted and inserted in one transaction holding the starter's user row,
     * so parallel starts can't all see room: PostgreSQL locks the row (FOR NO KEY UPDATE: starts
     * wait for each other, while rows that only refer to the user, a notice for them, do not wait,
     * which made a deadlock with a decision on the project: docs/decisions/instances.md "Row
     * locks"); SQLite's write transactions already run one at a time (BEGIN IMMEDIATE).
     */
    async insertWithinCap(
      db: DB,
      d: Insertable<DeploysTable>,
      max: number,
    ): Promise<{ n: number; firstExpiry: string | null } | null> {
      return db.transaction().execute(async (trx) => {
        let starter = trx.selectFrom('users').select('id').where('id', '=', d.user_id);
        if (dialect === 'postgres') starter = starter.forNoKeyUpdate();
        await starter.execute();
        const open = await openOf(trx, d.user_id, d.created_at);
        if (open.n >= max) return open;
        await trx.insertInto('deploys').values(d).execute();
        return null;
      });
    },
    /** A deploy of this user that has not expired. */
    byId(db: DB, id: string, userId: number, at: string): Promise<DeployRow | undefined> {
      return db
        .selectFrom('deploys')
        .selectAll()
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .where('expires_at', '>', at)
        .executeTakeFirst();
    },
    /**
     * The same check without the manifest (a PUT's: does the deploy exist, is it this user's, has
     * it not expired), so that a PUT neither reads nor parses some hundred KB per file.
     */
    openById(
      db: DB,
      id: string,
      userId: number,
      at: string,
    ): Promise<{ project_id: number | null; created_at: string } | undefined> {
      return db
        .selectFrom('deploys')
        .select(['project_id', 'created_at'])
        .where('id', '=', id)
        .where('user_id', '=', userId)
        .where('expires_at', '>', at)
        .executeTakeFirst();
    },
    /** Whether the deploy's row is still there (expired or not). */
    async exists(db: DB, id: string): Promise<boolean> {
      const row = await db.selectFrom('deploys').select('id').where('id', '=', id).executeTakeFirst();
      return row !== undefined;
    },
    /** A deploy's manifest (JSON), for an instance that did not begin it. */
    async manifestOf(db: DB, id: string): Promise<string | undefined> {
      const row = await db.selectFrom('deploys').select('manifest').where('id', '=', id).executeTakeFirst();
      return row?.manifest;
    },
    /** Deletes a deploy and says whether this call did (of two concurrent finishes one wins). */
    async take(trx: DB, id: string): Promise<boolean> {
      const r = await trx.deleteFrom('deploys').where('id', '=', id).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },
    /**
     * Adds received (or reserved) bytes unless the total would pass `max`, in one statement
     * (concurrent uploads to one deploy can't pass the limit together), and moves the deploy's
     * expiry to `expiresAt` (it is in use). False when the total would pass `max`, or the deploy
     * is gone or expired.
     */
    async addReceived(
      trx: DB,
      id: string,
      bytes: number,
      max: number,
      at: string,
      expiresAt: string,
    ): Promise<boolean> {
      const r = await trx
        .updateTable('deploys')
        .set((eb) => ({ received_bytes: eb('received_bytes', '+', bytes), expires_at: expiresAt }))
        .where('id', '=', id)
        .where('expires_at', '>', at)
        .where((eb) => eb(eb('received_bytes', '+', bytes), '<=', max))
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },
    /** Gives back bytes reserved for a PUT that failed or turned out shorter. */
    async releaseReceived(db: DB, id: string, bytes: number): Promise<void> {
      if (bytes <= 0) return;
      await db
        .updateTable('deploys')
        .set((eb) => ({ received_bytes: eb('received_bytes', '-', bytes) }))
        .where('id', '=', id)
        .execute();
    },
    /** The user's deploys that have not expired: how many, and when the first of them expires. */
    openOf(db: DB, userId: number, at: string): Promise<{ n: number; firstExpiry: string | null }> {
      return openOf(db, userId, at);
    },
    /** The contents of one version (a redeploy's unchanged files are found here first). */
    async hashesOfVersion(db: DB, deploymentId: number): Promise<Set<string>> {
      const rows = await db
        .selectFrom('deployment_files')
        .select('sha256')
        .where('deployment_id', '=', deploymentId)
        .execute();
      return new Set(rows.map((r) => r.sha256));
    },
    /** One version's number and its files (path → SHA-256): what an unchanged deploy is compared with. */
    async manifestOfVersion(
      db: DB,
      deploymentId: number,
    ): Promise<{ version: number; files: Map<string, string> }> {
      const [row, files] = await Promise.all([
        db.selectFrom('deployments').select('version').where('id', '=', deploymentId).executeTakeFirst(),
        db
          .selectFrom('deployment_files')
          .select(['path', 'sha256'])
          .where('deployment_id', '=', deploymentId)
          .execute(),
      ]);
      return { version: row?.version ?? 0, files: new Map(files.map((f) => [f.path, f.sha256])) };
    },
    versionIdOf,
    filesOfVersion,
    /**
     * A project's version by its number, with its files (filesOfVersion): the base of a
     * base-version deploy. Undefined when the project has no such version.
     */
    async versionWithFiles(
      db: DB,
      projectId: number,
      version: number,
    ): Promise<{ id: number; files: BaseDeploymentFile[] } | undefined> {
      const id = await versionIdOf(db, projectId, version);
      if (id === undefined) return undefined;
      return { id, files: await filesOfVersion(db, id) };
    },
    /**
     * Whether a version's row is still there, read inside a commit that copies its files: on
     * PostgreSQL the row is locked (FOR SHARE) until that commit, so a deletion of its project
     * waits for it, and its blobs are referenced by the new rows before anything can find them
     * unreferenced; SQLite's write transactions already run one at a time.
     */
    async holdVersion(trx: DB, deploymentId: number): Promise<boolean> {
      let q = trx.selectFrom('deployments').select('id').where('id', '=', deploymentId);
      if (dialect === 'postgres') q = q.forShare();
      return (await q.executeTakeFirst()) !== undefined;
    },
    /** Which of these contents the account holds in its own versions. */
    ownedHashes(db: DB, ownerId: number, hashes: readonly string[]): Promise<Set<string>> {
      return hashesOwnedBy(db, ownerId, hashes);
    },
    /** Deploys nobody finished in time (the leftover sweep removes them). */
    expired(db: DB, at: string): Promise<DeployRow[]> {
      return db.selectFrom('deploys').selectAll().where('expires_at', '<=', at).execute();
    },
  };
}
export type DeploysRepository = ReturnType<typeof createDeploysRepository>;
