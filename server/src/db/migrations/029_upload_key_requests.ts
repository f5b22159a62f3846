/**
 * What an upload's Idempotency-Key was sent with (docs/decisions/review.md "An answer is never
 * lost"): the request's method and path. A key answers again only the request it was first sent
 * with; the same key on another request (a new project's upload, another project's new version,
 * another deploy's finish) is refused 409 instead of answered with the first upload's project.
 * Keys recorded before this migration (kept a day) hold '' and answer as before.
 */
import { type Kysely, sql } from 'kysely';
import type { MigrationDialect } from './helpers.js';

export async function up(db: Kysely<unknown>, _dialect: MigrationDialect): Promise<void> {
  await db.schema
    .alterTable('upload_keys')
    .addColumn('request', 'text', (c) => c.notNull().defaultTo(sql`''`))
    .execute();
}
