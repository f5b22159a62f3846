/**
 * Leases that let several instances share one database (docs/decisions/instances.md "Job leases" and
 * "Orphan sweep safety"). Job leases are rows taken with one atomic upsert, the same SQL on both
 * engines. Blob leases are rows an upload writes before it stores blobs; on PostgreSQL a
 * transaction-scoped advisory lock (per schema) orders "write a lease" (shared) against "check
 * leases and delete blobs" (exclusive), so a deleter either sees the lease or finishes before the
 * upload stores anything. SQLite is one process: its BlobGate already orders the two.
 */
import { sql } from 'kysely';
import type { DB } from '../db/database.js';
import type { Dialect } from '../db/dialect.js';

/** Hashes per statement: well under both engines' bound-parameter limits. */
const CHUNK = 500;
/** The second key of the advisory lock (the first is the schema's hash): "blob deletion". */
export const BLOB_GATE_LOCK = 7301;
/** Heartbeat rows share job_leases with the jobs, under this prefix. */
const INSTANCE = 'instance:';

function chunks<T>(items: T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

export function createLeasesRepository(dialect: Dialect) {
  const pg = dialect === 'postgres';
  const lock = (trx: DB, mode: 'shared' | 'exclusive') =>
    sql`select ${sql.raw(mode === 'shared' ? 'pg_advisory_xact_lock_shared' : 'pg_advisory_xact_lock')}(hashtext(current_schema()), ${sql.lit(BLOB_GATE_LOCK)})`.execute(
      trx,
    );

  return {
    /** Takes the job's lease when it is free or expired; true when this holder now has it. */
    async takeJob(db: DB, name: string, holder: string, until: string, at: string): Promise<boolean> {
      const row = await db
        .insertInto('job_leases')
        .values({ name, holder, expires_at: until, runs: 1 })
        .onConflict((oc) =>
          oc
            .column('name')
            .doUpdateSet({ holder, expires_at: until, runs: sql`job_leases.runs + 1` })
            .where('job_leases.expires_at', '<=', at),
        )
        .returning('name')
        .executeTakeFirst();
      return row !== undefined;
    },
    /** Moves the end of a lease this holder has (to keep others away, or to free it now). */
    async holdJobUntil(db: DB, name: string, holder: string, until: string): Promise<void> {
      await db
        .updateTable('job_leases')
        .set({ expires_at: until })
        .where('name', '=', name)
        .where('holder', '=', holder)
        .execute();
    },
    /** An instance's heartbeat (jobs/instances.ts): a job_leases row `instance:{id}`. */
    async heartbeat(db: DB, instance: string, until: string): Promise<void> {
      await db
        .insertInto('job_leases')
        .values({ name: `${INSTANCE}${instance}`, holder: instance, expires_at: until, runs: 1 })
        .onConflict((oc) =>
          oc.column('name').doUpdateSet({ expires_at: until, runs: sql`job_leases.runs + 1` }),
        )
        .execute();
    },
    async endInstance(db: DB, instance: string): Promise<void> {
      await db.deleteFrom('job_leases').where('name', '=', `${INSTANCE}${instance}`).execute();
    },
    /** Instances whose heartbeat has not expired at `at`. */
    async liveInstances(db: DB, at: string): Promise<Set<string>> {
      const rows = await db
        .selectFrom('job_leases')
        .select('holder')
        .where('name', 'like', `${INSTANCE}%`)
        .where('expires_at', '>', at)
        .execute();
      return new Set(rows.map((r) => r.holder));
    },
    /** Heartbeat rows of instances that stopped beating before `at`. */
    async dropDeadInstances(db: DB, at: string): Promise<number> {
      const r = await db
        .deleteFrom('job_leases')
        .where('name', 'like', `${INSTANCE}%`)
        .where('expires_at', '<=', at)
        .executeTakeFirst();
      return Number(r.numDeletedRows);
    },
    async job(db: DB, name: string) {
      return db.selectFrom('job_leases').selectAll().where('name', '=', name).executeTakeFirst();
    },

    /**
     * Marks the blobs an upload is about to store (waits while a deleter is at work). One
     * statement whatever the number of hashes: they go as one array parameter (PostgreSQL's
     * unnest, SQLite's json_each), so nothing builds or binds thousands of values.
     */
    async leaseBlobs(db: DB, uploadId: string, hashes: string[], at: string): Promise<void> {
      const unique = [...new Set(hashes)];
      if (unique.length === 0) return;
      await db.transaction().execute(async (trx) => {
        if (pg) {
          await lock(trx, 'shared');
          await sql`insert into blob_leases (upload_id, sha256, created_at)
            select ${uploadId}, h, ${at} from unnest(${unique}::text[]) as h
            on conflict do nothing`.execute(trx);
        } else {
          // "where true": SQLite reads "on conflict" after a bare select as a join's constraint.
          await sql`insert into blob_leases (upload_id, sha256, created_at)
            select ${uploadId}, value, ${at} from json_each(${JSON.stringify(unique)}) where true
            on conflict do nothing`.execute(trx);
        }
      });
    },
    async releaseBlobs(db: DB, uploadId: string): Promise<void> {
      await db.deleteFrom('blob_leases').where('upload_id', '=', uploadId).execute();
    },
    /** The hashes one upload has leased. */
    async leasedBy(db: DB, uploadId: string): Promise<Set<string>> {
      const rows = await db
        .selectFrom('blob_leases')
        .select('sha256')
        .where('upload_id', '=', uploadId)
        .execute();
      return new Set(rows.map((r) => r.sha256));
    },
    /** The uploads holding blob leases now. */
    async blobLeaseUploads(db: DB): Promise<string[]> {
      const rows = await db.selectFrom('blob_leases').select('upload_id').distinct().execute();
      return rows.map((r) => r.upload_id);
    },
    async dropBlobLeasesOf(db: DB, uploadIds: string[]): Promise<number> {
      let n = 0;
      for (const part of chunks(uploadIds)) {
        const r = await db.deleteFrom('blob_leases').where('upload_id', 'in', part).executeTakeFirst();
        n += Number(r.numDeletedRows);
      }
      return n;
    },
    /** Leases an upload that died never released (its instance crashed). */
    async dropBlobLeasesBefore(db: DB, at: string): Promise<number> {
      const r = await db.deleteFrom('blob_leases').where('created_at', '<', at).executeTakeFirst();
      return Number(r.numDeletedRows);
    },
    /** Which of these hashes an upload has leased. */
    async leased(trx: DB, hashes: string[]): Promise<Set<string>> {
      const out = new Set<string>();
      for (const part of chunks([...new Set(hashes)])) {
        const rows = await trx
          .selectFrom('blob_leases')
          .select('sha256')
          .distinct()
          .where('sha256', 'in', part)
          .execute();
        for (const r of rows) out.add(r.sha256);
      }
      return out;
    },
    /**
     * Runs a deleter's "check references and leases, delete blobs" with no lease written
     * meanwhile: in one transaction under the exclusive lock on PostgreSQL (keep the work short:
     * one batch), directly on SQLite.
     */
    async deletingBlobs<T>(db: DB, work: (trx: DB) => Promise<T>): Promise<T> {
      if (!pg) return work(db);
      return db.transaction().execute(async (trx) => {
        await lock(trx, 'exclusive');
        return work(trx);
      });
    },
  };
}
export type LeasesRepository = ReturnType<typeof createLeasesRepository>;
