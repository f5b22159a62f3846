/**
 * A digest deploy may name its site (docs/decisions/names.md): the name asked at the start is
 * kept with the open deploy and claimed when it finishes, as its project name is.
 */
import type { Kysely } from 'kysely';
import type { MigrationDialect } from './helpers.js';

export async function up(db: Kysely<unknown>, _dialect: MigrationDialect): Promise<void> {
  await db.schema.alterTable('deploys').addColumn('site_name', 'text').execute();
}
