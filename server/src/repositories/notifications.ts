/** The notifications table (migration 016): each account's notices under the bell. */
import type { NotificationKind } from '@sitehall/contracts';
import { sql } from 'kysely';
import type { DB } from '../db/database.js';
import type { NotificationRow } from '../db/types.js';

export interface NewNotification {
  user_id: number;
  kind: NotificationKind;
  project_id: number | null;
  project_name: string;
  version: number | null;
  reason: string | null;
  created_at: string;
}

export async function add(trx: DB, n: NewNotification): Promise<void> {
  await trx.insertInto('notifications').values(n).execute();
}

/**
 * Brings an account's unread notice of this kind about this project up to date (a newer version
 * waiting, say) instead of adding another; false when it has none unread.
 */
export async function refreshUnread(trx: DB, n: NewNotification): Promise<boolean> {
  const r = await trx
    .updateTable('notifications')
    .set({ version: n.version, project_name: n.project_name, reason: n.reason, created_at: n.created_at })
    .where('user_id', '=', n.user_id)
    .where('kind', '=', n.kind)
    .where('project_id', '=', n.project_id)
    .where('read_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** One page of an account's notices, newest first (only unread ones with `unread`). */
export async function page(
  db: DB,
  userId: number,
  opts: { unread: boolean; limit: number; offset: number },
): Promise<{ rows: NotificationRow[]; total: number }> {
  let q = db.selectFrom('notifications').where('user_id', '=', userId);
  if (opts.unread) q = q.where('read_at', 'is', null);
  const [rows, count] = await Promise.all([
    q
      .selectAll()
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(opts.limit)
      .offset(opts.offset)
      .execute(),
    q.select(sql<number>`count(*)`.as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.n) };
}

export async function unreadCount(db: DB, userId: number): Promise<number> {
  const r = await db
    .selectFrom('notifications')
    .select(sql<number>`count(*)`.as('n'))
    .where('user_id', '=', userId)
    .where('read_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** Marks the account's notice read (another account's id changes nothing: 0). */
export async function markRead(db: DB, userId: number, id: number, at: string): Promise<number> {
  const r = await db
    .updateTable('notifications')
    .set({ read_at: at })
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .where('read_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

export async function exists(db: DB, userId: number, id: number): Promise<boolean> {
  const r = await db
    .selectFrom('notifications')
    .select('id')
    .where('id', '=', id)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return r !== undefined;
}

/**
 * Every admin's notice of a version waiting for review, for this version and those before it, once
 * it is decided: the bell then counts what still waits (docs/notifications.md).
 */
/**
 * Marks read every admin's notice of the project's uploads up to `version`, or of all of them
 * (`version` null: the project was taken down or deleted).
 */
export async function settleReviews(
  db: DB,
  projectId: number,
  version: number | null,
  at: string,
): Promise<number> {
  let q = db
    .updateTable('notifications')
    .set({ read_at: at })
    .where('kind', '=', 'upload_pending')
    .where('project_id', '=', projectId)
    .where('read_at', 'is', null);
  if (version !== null) q = q.where('version', '<=', version);
  const r = await q.executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/** Marks read one account's notices of uploads waiting for review (it is no reviewer any more). */
export async function settleReviewsOf(db: DB, userId: number, at: string): Promise<number> {
  const r = await db
    .updateTable('notifications')
    .set({ read_at: at })
    .where('kind', '=', 'upload_pending')
    .where('user_id', '=', userId)
    .where('read_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

export async function markAllRead(db: DB, userId: number, at: string): Promise<number> {
  const r = await db
    .updateTable('notifications')
    .set({ read_at: at })
    .where('user_id', '=', userId)
    .where('read_at', 'is', null)
    .executeTakeFirst();
  return Number(r.numUpdatedRows);
}

/** Who hears of a new upload: the active administrators, but not the one who uploaded it. */
export function reviewers(trx: DB, except: number) {
  return trx
    .selectFrom('users')
    .select(['id', 'email', 'email_notifications'])
    .where('role', '=', 'admin')
    .where('disabled', '=', 0)
    .where('id', '<>', except)
    .orderBy('id')
    .execute();
}

/** An account's address and e-mail choice (undefined: the account is gone). */
export function recipient(trx: DB, userId: number) {
  return trx
    .selectFrom('users')
    .select(['id', 'email', 'email_notifications', 'disabled'])
    .where('id', '=', userId)
    .executeTakeFirst();
}

/**
 * Deletes read notices made before `readBefore` and unread ones made before `unreadBefore`
 * (docs/notifications.md "How long rows are kept"); returns how many.
 */
export async function expire(db: DB, opts: { readBefore: string; unreadBefore: string }): Promise<number> {
  const r = await db
    .deleteFrom('notifications')
    .where((eb) =>
      eb.or([
        eb.and([eb('created_at', '<', opts.readBefore), eb('read_at', 'is not', null)]),
        eb('created_at', '<', opts.unreadBefore),
      ]),
    )
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}
