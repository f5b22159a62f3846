/**
 * The index that finds a content's version files by its SHA-256 holds only the hash's first 8
 * characters (docs/decisions/data.md "Contents found by a prefix of their hash"). Every version
 * writes one row per file, and a row's hash is random, so each row of a new version went into its
 * own page of a full-hash index: copying a 5,000-file version's rows for a one-file redeploy cost
 * 39–40 ms and its commit 57–62 ms on SQLite (every dirtied page written to the WAL and
 * checkpointed), against 21–22 ms and 8 ms with the prefix's smaller entries. The lookups name
 * the prefix and then the whole hash (repositories/deployment-files.ts `withContent`).
 */
import { type Kysely, sql } from 'kysely';
import type { MigrationDialect } from './helpers.js';

export async function up(db: Kysely<unknown>, _dialect: MigrationDialect): Promise<void> {
  // The same expression on both engines, written as the lookups write it.
  await sql`create index deployment_files_sha_prefix on deployment_files (substr(sha256, 1, 8))`.execute(db);
  await sql`drop index deployment_files_sha`.execute(db);
}
