/** The settings table: platform settings, one JSON value per key. */
import type { DB } from '../db/database.js';

export async function get(db: DB, key: string): Promise<string | undefined> {
  const row = await db.selectFrom('settings').select('value').where('key', '=', key).executeTakeFirst();
  return row?.value;
}

export async function put(trx: DB, key: string, value: string, at: string): Promise<void> {
  await trx
    .insertInto('settings')
    .values({ key, value, updated_at: at })
    .onConflict((oc) => oc.column('key').doUpdateSet({ value, updated_at: at }))
    .execute();
}
