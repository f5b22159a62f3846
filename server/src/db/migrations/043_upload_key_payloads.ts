/**
 * What an upload's Idempotency-Key was sent with, besides its method and path (migration 029): the
 * payload's fingerprint, a SHA-256 over its form fields and each file's name, size and content
 * hash (services/uploads.ts payloadOf; docs/decisions/review.md "An answer is never lost"). A key
 * answers again only a retry of the same upload; the same key with other files or other fields
 * is refused 409 instead of answered with the first upload. Keys recorded before this migration
 * (kept a day) and the finishes of digest deploys (no body) hold '' and answer as before.
 */
import { type Kysely, sql } from 'kysely';
import type { MigrationDialect } from './helpers.js';

export async function up(db: Kysely<unknown>, _dialect: MigrationDialect): Promise<void> {
  await db.schema
    .alterTable('upload_keys')
    .addColumn('payload', 'text', (c) => c.notNull().defaultTo(sql`''`))
    .execute();
}
