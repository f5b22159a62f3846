/**
 * How each version's files arrived: loose files, an archive by the format its bytes showed (zip,
 * rar, 7z), or a digest deploy (contracts/archive-formats.ts UploadSource). Null for versions
 * uploaded before it was recorded: the review page then names them as before
 * (docs/decisions/review.md "Review detail").
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('deployments').addColumn('upload_source', 'text').execute();
}
