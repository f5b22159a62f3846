/**
 * PostgreSQL only: each project's row holds a 256-bit bloom of its own text's grams, and the three
 * order indexes a walk of the page reads hold it too (docs/decisions/serving.md "Gram blooms on
 * the walk"; search/bloom.ts). A walk then tests a project's bits before probing its postings, in
 * the index it already reads: at 1,000,000 projects `react 地图` walked 1,881 projects and probed
 * each (≈2 µs a probe), where the bits leave a few dozen to probe.
 *
 * A row's bloom starts with every bit set (every test passes: a project is never left out by a
 * bloom not yet written), and the index writes it with the entry's grams (search/sql.ts
 * setBlooms). Here the entries that exist get theirs from the grams they hold (migration 037), the
 * same bits as search/bloom.ts writes: the first byte of each gram's MD5.
 */
import { type Kysely, sql } from 'kysely';
import type { MigrationDialect } from './helpers.js';

const LISTED = sql`live_deployment_id is not null and is_public = 1`;
/** What a walk reads of each project besides the order's own columns (migration 028). */
const WALKED = sql`featured, live_deployment_id, is_public, owner_id`;
const BITS = 256;

export async function up(db: Kysely<unknown>, dialect: MigrationDialect): Promise<void> {
  if (dialect !== 'postgres') return;
  const full = sql.raw(`B'${'1'.repeat(BITS)}'`);
  const empty = sql.raw(`B'${'0'.repeat(BITS)}'`);
  // The order indexes go first: the rows are written without them, then each is built once.
  for (const name of ['showcase_latest', 'showcase_popular', 'showcase_name_key'])
    await sql`drop index if exists ${sql.id(name)}`.execute(db);
  await sql`alter table projects add column gram_bloom bit(${sql.lit(BITS)}) not null default ${full}`.execute(
    db,
  );
  await sql`update projects p set gram_bloom = b.bloom
    from (select e.project_id, bit_or(set_bit(${empty}, get_byte(decode(md5(g.gram), 'hex'), 0), 1)) as bloom
      from showcase_entries e cross join lateral unnest(e.grams) g(gram) group by e.project_id) b
    where p.id = b.project_id`.execute(db);
  // An entry with no own text holds no gram: nothing can be found in it.
  await sql`update projects p set gram_bloom = ${empty}
    from showcase_entries e where e.project_id = p.id and e.grams = '{}'`.execute(db);
  for (const [name, columns] of [
    ['showcase_latest', sql`approved_at, id, ${WALKED}`],
    ['showcase_popular', sql`view_count, id, ${WALKED}`],
    ['showcase_name_key', sql`name_sort_key collate "C", name collate "C", id, ${WALKED}`],
  ] as const)
    await sql`create index ${sql.id(name)} on projects (${columns}) include (gram_bloom) where ${LISTED}`.execute(
      db,
    );
  // No `analyze` here: on an empty table (a new install) it would tell the planner the table is
  // empty for good, and a walk would be planned as a scan and a sort (autovacuum analyzes a
  // table as it fills).
}
