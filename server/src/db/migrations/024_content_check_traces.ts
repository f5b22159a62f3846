/**
 * Stored traces of the content check (docs/content-check.md "Stored traces"): what scanning a large
 * file's bytes found, kept by a digest of the check's version, the bytes' SHA-256, how much was
 * read, the type and (when the scan read it) the path, so an unchanged library file is replayed in
 * any later version or account instead of parsed again. `used_on` (a UTC day) lets the sweep drop
 * traces nobody replayed for a long time; rows of another check version are dropped too.
 */
import type { Kysely } from 'kysely';
import type { MigrationDialect } from './helpers.js';

export async function up(db: Kysely<unknown>, _dialect: MigrationDialect): Promise<void> {
  await db.schema
    .createTable('content_check_traces')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('check_version', 'text', (c) => c.notNull())
    .addColumn('trace', 'text', (c) => c.notNull())
    .addColumn('used_on', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('content_check_traces_used_on')
    .on('content_check_traces')
    .column('used_on')
    .execute();
}
