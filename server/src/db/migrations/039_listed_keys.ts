/**
 * PostgreSQL only: each listed project's latest-order key by its id, in an index alone (docs/decisions/
 * serving.md "Holders sorted first"). A search whose page is in the latest order may then sort its
 * rarest gram's holders by that key, reading no project's row, and test them in that order until
 * the page is full (search/sql.ts `sortHolders`): at 1,000,000 projects 在线工具's page was a walk
 * of 17,136 projects in the order index to find 12 of its 808 holders' matches.
 *
 * Partial on the listed projects, as the order indexes are: a holder found here is listed.
 * SQLite sorts every match instead (its walks and reads by key cost a fraction of PostgreSQL's).
 */
import { type Kysely, sql } from 'kysely';
import type { MigrationDialect } from './helpers.js';

export async function up(db: Kysely<unknown>, dialect: MigrationDialect): Promise<void> {
  if (dialect !== 'postgres') return;
  await sql`create index showcase_listed_keys on projects (id) include (approved_at)
    where live_deployment_id is not null and is_public = 1`.execute(db);
}
