/**
 * Projects get name_sort_key (domain/name-order.ts): the showcase's 名称 order becomes pinyin
 * order, the same on both engines (bytes compared: COLLATE "C" on PostgreSQL, SQLite's default).
 * Existing names get their keys here; the partial index of the name order moves to the key.
 *
 * The key is computed by a frozen copy of the algorithm as it was when this migration was written
 * (docs/architecture.md "Import rules, checked": a migration imports only db/), so a later change
 * to domain/name-order.ts does not change what this migration did.
 */
import { type Kysely, sql } from 'kysely';
import { pinyin } from 'pinyin-pro';
import type { MigrationDialect } from './helpers.js';

/** domain/name-order.ts nameSortKey, frozen. */
function nameSortKey(name: string): string {
  const parts = pinyin(name.normalize('NFKC').trim(), {
    toneType: 'none',
    type: 'array',
    nonZh: 'consecutive',
    v: true,
  });
  return parts
    .map((part) => part.trim().toLowerCase())
    .filter(Boolean)
    .join(' ');
}

const LISTED = sql`live_deployment_id is not null and is_public = 1`;

export async function up(db: Kysely<unknown>, dialect: MigrationDialect): Promise<void> {
  await db.schema
    .alterTable('projects')
    .addColumn('name_sort_key', 'text', (c) => c.notNull().defaultTo(''))
    .execute();

  const rows = await sql<{ id: number; name: string }>`select id, name from projects`.execute(db);
  for (const row of rows.rows) {
    await sql`update projects set name_sort_key = ${nameSortKey(row.name)} where id = ${row.id}`.execute(db);
  }

  await sql`drop index if exists showcase_name`.execute(db);
  const bytes = dialect === 'postgres' ? sql` collate "C"` : sql``;
  await sql`create index showcase_name_key on projects (name_sort_key${bytes}, name${bytes}, id) where ${LISTED}`.execute(
    db,
  );
}
