/**
 * Files of a type that is not web content, stored and served as downloads only
 * (docs/decisions/uploads.md "File types"): marked per file, so the uploader and the reviewer see which they are.
 */
import type { Kysely } from 'kysely';
import type { MigrationDialect } from './helpers.js';

export async function up(db: Kysely<unknown>, _dialect: MigrationDialect): Promise<void> {
  await db.schema
    .alterTable('deployment_files')
    .addColumn('download_only', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
