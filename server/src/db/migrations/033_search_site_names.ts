/**
 * A project's site name (docs/decisions/names.md) is searched like its name: `search_text` gains a
 * line with it, before the author's (docs/decisions/serving.md "Showcase listing and search").
 * The projects that have one get theirs written again here; the triggers of migration 002 queue
 * each of them, and the showcase index takes their new text from the queue as it takes any
 * change (search/index-maintenance.ts), in the background for a large install. Projects without
 * a site name keep their text as it is, so nothing else is indexed again.
 *
 * The text is made by a frozen copy of services/projects.ts searchText as it was when this
 * migration was written (docs/architecture.md "Import rules, checked": a migration imports only
 * db/), so a later change to it does not change what this migration did.
 */
import { type Kysely, sql } from 'kysely';
import type { MigrationDialect } from './helpers.js';

/** services/projects.ts searchText, frozen. */
function searchText(name: string, description: string | null, owner: string, siteName: string): string {
  return `${name}\n${description ?? ''}\n${siteName}\n${owner}`.toLowerCase();
}

/** Projects read and written per round: memory stays bounded however many have a site name. */
const CHUNK = 1000;

export async function up(db: Kysely<unknown>, _dialect: MigrationDialect): Promise<void> {
  for (let after = 0; ; ) {
    const rows = await sql<{
      id: number;
      name: string;
      description: string | null;
      site_name: string;
      username: string;
    }>`select p.id, p.name, p.description, p.site_name, u.username
      from projects p join users u on u.id = p.owner_id
      where p.site_name is not null and p.id > ${after} order by p.id limit ${CHUNK}`.execute(db);
    for (const row of rows.rows) {
      await sql`update projects set search_text = ${searchText(row.name, row.description, row.username, row.site_name)}
        where id = ${row.id}`.execute(db);
    }
    if (rows.rows.length < CHUNK) break;
    after = Number(rows.rows.at(-1)!.id);
  }
}
