/**
 * Leases for running several instances on one database (docs/decisions/instances.md "Job leases" and
 * "Orphan sweep safety"): job_leases lets one instance at a time run a timed job, and blob_leases
 * marks the blobs an upload is storing before its rows exist, so no orphan sweep or project
 * delete on another instance removes them meanwhile.
 */
import type { Kysely } from 'kysely';
import type { MigrationDialect } from './helpers.js';

export async function up(db: Kysely<unknown>, _dialect: MigrationDialect): Promise<void> {
  await db.schema
    .createTable('job_leases')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    // How many times the job was taken: shows (and tests) that a job ran once, not per instance.
    .addColumn('runs', 'integer', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('blob_leases')
    .addColumn('upload_id', 'text', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('blob_leases_pk', ['upload_id', 'sha256'])
    .execute();
  await db.schema.createIndex('blob_leases_sha256').on('blob_leases').column('sha256').execute();
}
