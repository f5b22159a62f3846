/**
 * A base-version deploy (docs/decisions/deploys.md "Base-version deploys") keeps what its finish
 * composes the new version from: the base version's deployment id and the paths it removes, as
 * JSON; the manifest column then holds only the new and changed files. Null for a full-manifest
 * deploy.
 */
import type { Kysely } from 'kysely';
import type { MigrationDialect } from './helpers.js';

export async function up(db: Kysely<unknown>, _dialect: MigrationDialect): Promise<void> {
  await db.schema.alterTable('deploys').addColumn('base', 'text').execute();
}
