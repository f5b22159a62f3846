/**
 * The first characters of each API token (`sht_` and 8 more), kept beside its hash so the owner and
 * the administrators can tell tokens apart in a list (docs/decisions/deploys.md "API tokens"). Null for
 * tokens made before it was kept: their lists show the name only.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('api_tokens').addColumn('prefix', 'text').execute();
}
