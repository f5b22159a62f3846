/** Idempotency keys of uploads (migration 013): the first upload an account made with each key. */
import type { DB } from '../db/database.js';

/** How long a key answers for its first upload. */
export const UPLOAD_KEY_TTL_MS = 24 * 60 * 60 * 1000;

const cutoff = (at: string) => new Date(Date.parse(at) - UPLOAD_KEY_TTL_MS).toISOString();

/**
 * The project and version of this account's upload with this key, if made in the last day, and
 * the request and payload it came with.
 */
export function find(
  db: DB,
  userId: number,
  key: string,
  at: string,
): Promise<{ project_id: number; deployment_id: number; request: string; payload: string } | undefined> {
  return db
    .selectFrom('upload_keys')
    .select(['project_id', 'deployment_id', 'request', 'payload'])
    .where('user_id', '=', userId)
    .where('idempotency_key', '=', key)
    .where('created_at', '>', cutoff(at))
    .executeTakeFirst();
}

/**
 * Records the key with the upload's own transaction; false when the account holds it already (a
 * retry that raced the first upload: on PostgreSQL this waits for the other transaction). The
 * account's expired keys go first, so the table holds at most a day of each account's uploads.
 */
export async function claim(
  trx: DB,
  row: {
    user_id: number;
    idempotency_key: string;
    project_id: number;
    deployment_id: number;
    /** The method and path the key came with (http/upload-delivery.ts). */
    request: string;
    /** The upload's fields and files, fingerprinted (services/uploads.ts payloadOf); '' for none. */
    payload: string;
    created_at: string;
  },
): Promise<boolean> {
  await trx
    .deleteFrom('upload_keys')
    .where('user_id', '=', row.user_id)
    .where('created_at', '<=', cutoff(row.created_at))
    .execute();
  const r = await trx
    .insertInto('upload_keys')
    .values(row)
    .onConflict((oc) => oc.columns(['user_id', 'idempotency_key']).doNothing())
    .executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0n) > 0;
}
