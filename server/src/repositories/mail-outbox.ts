/**
 * The mail outbox (migration 016, docs/notifications.md): e-mails written in the transaction of
 * the action that caused them, delivered by the mail worker. A row is claimed with one conditional
 * update, the same SQL on both engines, as render jobs are (repositories/render-jobs.ts): only the
 * instance whose update matched sends it, under a lease another instance may take over once it has
 * run out (the sender died mid-send).
 */
import { sql } from 'kysely';
import type { DB } from '../db/database.js';
import type { MailOutboxRow } from '../db/types.js';

/** Queued and due, or being sent under a lease that has run out. */
const takeable = (at: string) =>
  sql<boolean>`((status = 'queued' and run_after <= ${at}) or (status = 'sending' and lease_until <= ${at}))`;

export async function enqueue(
  trx: DB,
  mail: { user_id: number; subject: string; body: string },
  at: string,
): Promise<void> {
  await trx
    .insertInto('mail_outbox')
    .values({ ...mail, status: 'queued', run_after: at, created_at: at, updated_at: at })
    .execute();
}

/**
 * Takes the oldest due e-mail for this holder until leaseUntil; undefined when none is due. Not
 * shared with render-jobs' take: that one picks by the account's turn and moves the turn in the
 * claim's transaction, where e-mails simply go oldest first (only the look-then-claim retry is alike).
 */
export async function take(
  db: DB,
  holder: string,
  at: string,
  leaseUntil: string,
): Promise<MailOutboxRow | undefined> {
  for (let tries = 0; tries < 5; tries++) {
    const next = await db
      .selectFrom('mail_outbox')
      .select('id')
      .where(takeable(at))
      .orderBy('id')
      .limit(1)
      .executeTakeFirst();
    if (!next) return undefined;
    const taken = await db
      .updateTable('mail_outbox')
      .set({
        status: 'sending',
        holder,
        lease_until: leaseUntil,
        attempts: sql`attempts + 1`,
        updated_at: at,
      })
      .where('id', '=', next.id)
      .where(takeable(at))
      .returningAll()
      .executeTakeFirst();
    // Another instance took it between the two statements: look again.
    if (taken) return taken;
  }
  return undefined;
}

/** Ends a send this holder still has: sent, skipped, failed for good, or queued again for later. */
export async function settle(
  db: DB,
  id: number,
  holder: string,
  outcome:
    | { status: 'sent' }
    | { status: 'skipped'; error: string }
    | { status: 'failed'; error: string }
    | { status: 'queued'; error: string; runAfter: string },
  at: string,
): Promise<boolean> {
  const r = await db
    .updateTable('mail_outbox')
    .set({
      status: outcome.status,
      holder: null,
      lease_until: null,
      error: outcome.status === 'sent' ? null : outcome.error,
      ...(outcome.status === 'queued' ? { run_after: outcome.runAfter } : {}),
      updated_at: at,
    })
    .where('id', '=', id)
    .where('holder', '=', holder)
    .where('status', '=', 'sending')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) > 0;
}

/** Sent, skipped and failed e-mails older than `before` (kept a while for the operator to look at). */
export async function purgeDone(db: DB, before: string): Promise<number> {
  const r = await db
    .deleteFrom('mail_outbox')
    .where('status', 'in', ['sent', 'skipped', 'failed'])
    .where('updated_at', '<', before)
    .executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** E-mails waiting or being sent (the outbox metric, and tests waiting for delivery). */
export async function waiting(db: DB): Promise<number> {
  const r = await db
    .selectFrom('mail_outbox')
    .select(sql<number>`count(*)`.as('n'))
    .where('status', 'in', ['queued', 'sending'])
    .executeTakeFirstOrThrow();
  return Number(r.n);
}
