/**
 * Numbers in project names sort by value (docs/decisions/serving.md "Numbers in names sort by
 * value"): name_sort_key writes each run of digits as its length and its digits, so 项目2 lists
 * before 项目10. Every project's key is computed again here and written where it changed (names
 * with digits), a thousand projects at a time.
 *
 * The key is computed by a frozen copy of domain/name-order.ts as it was when this migration was
 * written (docs/architecture.md "Import rules, checked": a migration imports only db/).
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
    .join(' ')
    .replace(/\d+/g, (digits) => {
      const value = digits.replace(/^0+(?=\d)/, '');
      return `${String(value.length).padStart(2, '0')}${value}`;
    });
}

const BATCH = 1000;

export async function up(db: Kysely<unknown>, _dialect: MigrationDialect): Promise<void> {
  for (let after = 0; ; ) {
    const { rows } = await sql<{ id: number; name: string; name_sort_key: string }>`
      select id, name, name_sort_key from projects where id > ${after} order by id limit ${BATCH}`.execute(
      db,
    );
    for (const row of rows) {
      const key = nameSortKey(row.name);
      if (key !== row.name_sort_key) {
        await sql`update projects set name_sort_key = ${key} where id = ${row.id}`.execute(db);
      }
    }
    if (rows.length < BATCH) return;
    after = Number(rows[rows.length - 1]!.id);
  }
}
