/**
 * Stored traces of the content check (migration 024; docs/content-check.md "Stored traces"), by the
 * digest content-check/trace-cache.ts makes of a file's bytes, read size, type, option, check
 * version and (for a path-bound trace) path. Rows are written only from traces the server's own
 * worker made from those bytes.
 */
import { sql } from 'kysely';
import type { DB } from '../db/database.js';

/** Keys per statement (well under either engine's parameter limit). */
const CHUNK = 500;

/** The traces held under any of `keys`, by key. */
export async function find(db: DB, keys: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (let i = 0; i < keys.length; i += CHUNK) {
    const rows = await db
      .selectFrom('content_check_traces')
      .select(['key', 'trace'])
      .where('key', 'in', keys.slice(i, i + CHUNK))
      .execute();
    for (const r of rows) out.set(r.key, r.trace);
  }
  return out;
}

/** Marks these traces used on `day` (only rows not marked yet that day are written). */
export async function touch(db: DB, keys: readonly string[], day: string): Promise<void> {
  for (let i = 0; i < keys.length; i += CHUNK) {
    await db
      .updateTable('content_check_traces')
      .set({ used_on: day })
      .where('key', 'in', keys.slice(i, i + CHUNK))
      .where('used_on', '<', day)
      .execute();
  }
}

/** Keeps these traces for `version`, replacing any under the same key. */
export async function save(
  db: DB,
  rows: ReadonlyArray<{ key: string; trace: string }>,
  version: string,
  day: string,
): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK / 4) {
    await db
      .insertInto('content_check_traces')
      .values(rows.slice(i, i + CHUNK / 4).map((r) => ({ ...r, check_version: version, used_on: day })))
      .onConflict((oc) =>
        oc.column('key').doUpdateSet({
          trace: sql`excluded.trace`,
          check_version: sql`excluded.check_version`,
          used_on: sql`excluded.used_on`,
        }),
      )
      .execute();
  }
}

/** Deletes the traces of other check versions and those unused since before `day`; how many. */
export async function prune(db: DB, version: string, day: string): Promise<number> {
  const r = await db
    .deleteFrom('content_check_traces')
    .where((eb) => eb.or([eb('check_version', '<>', version), eb('used_on', '<', day)]))
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** How many traces are stored (tests, metrics). */
export async function count(db: DB): Promise<number> {
  const r = await db
    .selectFrom('content_check_traces')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(r.n);
}
