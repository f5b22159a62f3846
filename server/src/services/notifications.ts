/**
 * Notices and their e-mail (docs/notifications.md). `notify` writes, inside the transaction of
 * the action that caused it (a review decision, a rollback, an upload), the notices and one outbox
 * row per e-mail: the action commits both or neither, and sending never blocks or fails it. The
 * mail worker then delivers the outbox in the background: it claims one row at a time under a lease
 * (repositories/mail-outbox.ts, as render jobs are claimed), so several instances never send one
 * e-mail twice while each may send; a failure is tried again later with a doubling wait, and after
 * the last try the row stays failed with its reason.
 */
import {
  format,
  messages,
  NOTIFICATION_REASON_LABELS,
  NOTIFICATION_TITLES,
  type NotificationDto,
  type NotificationKind,
} from '@sitehall/contracts';
import type { Transporter } from 'nodemailer';
import type { DB } from '../db/database.js';
import { now } from '../db/database.js';
import type { NotificationRow } from '../db/types.js';
import type { Actor } from '../domain/actor.js';
import { NotFound } from '../domain/errors.js';
import type { Repositories } from '../repositories/index.js';
import type { NewNotification } from '../repositories/notifications.js';

/**
 * E-mail of notices (docs/notifications.md): off without SMTP_URL. `from` is MAIL_FROM;
 * `publicUrl` (PUBLIC_URL) makes the links in e-mails absolute. The worker looks for due mail
 * every pollMs and tries a failed one again after retryBaseMs × 2^(attempts-1), at most
 * maxAttempts times.
 */
export interface MailConfig {
  smtpUrl?: string;
  from: string;
  publicUrl?: string;
  pollMs: number;
  retryBaseMs: number;
  maxAttempts: number;
}

const m = messages.notification;

/** What happened, as the notice needs it. */
export type NotificationEvent =
  | {
      kind: Exclude<NotificationKind, 'upload_pending'>;
      /** The project's owner, who is told (unless the owner did it). */
      ownerId: number;
      actorId: number;
      projectId: number;
      projectName: string;
      version: number | null;
      reason?: string | null;
    }
  | {
      kind: 'upload_pending';
      /** Who uploaded (admins other than this one are told). */
      actorId: number;
      projectId: number;
      projectName: string;
      version: number;
    };

/** A name or reason on one line: no control character reaches a mail header or a title. */
export function oneLine(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f\u2028\u2029]+/g, ' ').trim();
}

export function noticeTitle(kind: NotificationKind, name: string, version: number | null): string {
  return format(NOTIFICATION_TITLES[kind], { name: oneLine(name), version: version ?? '' });
}

/** Where a notice leads in the web app. */
export function noticeLink(kind: NotificationKind, projectId: number | null): string | null {
  // A deleted project has no page to lead to.
  if (projectId === null || kind === 'deleted') return null;
  return kind === 'upload_pending' ? `/admin/reviews/${projectId}` : `/projects/${projectId}`;
}

export function presentNotification(n: NotificationRow): NotificationDto {
  return {
    id: n.id,
    kind: n.kind,
    title: noticeTitle(n.kind, n.project_name, n.version),
    reason: n.reason,
    project_id: n.project_id,
    project_name: n.project_name,
    version: n.version,
    link: noticeLink(n.kind, n.project_id),
    read: n.read_at !== null,
    created_at: n.created_at,
  };
}

/** The e-mail of a notice: subject and plain-text body (the reason stays in the body). */
export function mailOf(
  n: {
    kind: NotificationKind;
    projectId: number;
    projectName: string;
    version: number | null;
    reason?: string | null;
  },
  publicUrl: string | undefined,
): { subject: string; body: string } {
  const title = noticeTitle(n.kind, n.projectName, n.version);
  const lines = [title, ''];
  if (n.reason)
    lines.push(format(m.mailReason, { label: NOTIFICATION_REASON_LABELS[n.kind], reason: n.reason }), '');
  const link = noticeLink(n.kind, n.projectId);
  if (link && publicUrl) lines.push(format(m.mailLink, { url: `${publicUrl}${link}` }), '');
  lines.push('--', m.mailFooter);
  return { subject: oneLine(`${m.mailSubjectPrefix}${title}`).slice(0, 250), body: lines.join('\n') };
}

export interface MailWorkerOptions {
  mail: MailConfig;
  /** This instance's id: the holder of the outbox rows it claims. */
  holder: string;
}

type Log = (level: 'warn' | 'error', msg: string, detail?: Record<string, unknown>) => void;

/** How long a claimed e-mail is this instance's before another may try it (the sender died). */
const LEASE_MS = 2 * 60_000;
/** How long the SMTP server may take to answer: a server that hangs is a failed try, not a stall. */
const SMTP_TIMEOUT_MS = 20_000;
/** Sent and given-up e-mails are kept this long, then deleted. */
const KEEP_DONE_MS = 14 * 86_400_000;

export function createNotificationService(
  db: DB,
  repos: Pick<Repositories, 'notifications' | 'mailOutbox'>,
  opts: MailWorkerOptions,
) {
  const { notifications: notices, mailOutbox: outbox } = repos;
  const { mail } = opts;
  const mailOn = mail.smtpUrl !== undefined;
  let transport: Transporter | undefined;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  let pumping: Promise<void> | null = null;
  let lastPurge = 0;
  let log: Log = () => {};

  // Loaded with the first e-mail: a server without SMTP_URL never loads the mail library.
  async function transporter(): Promise<Transporter> {
    const { default: nodemailer } = await import('nodemailer');
    transport ??= nodemailer.createTransport({
      url: mail.smtpUrl,
      connectionTimeout: SMTP_TIMEOUT_MS,
      greetingTimeout: SMTP_TIMEOUT_MS,
      socketTimeout: SMTP_TIMEOUT_MS,
      // A test server (and many internal relays) has a certificate of its own making.
      tls: { rejectUnauthorized: false },
    });
    return transport;
  }

  /** Writes one account's notice, and its e-mail when the server sends e-mail and the account wants it. */
  async function tell(
    trx: DB,
    to: { id: number; email: string | null; email_notifications: number },
    notice: NewNotification,
    grouped: boolean,
  ): Promise<void> {
    // An admin's unread notice of the same project's waiting upload is brought up to date:
    // no new notice, and no second e-mail, until the admin has read the first.
    if (grouped && (await notices.refreshUnread(trx, notice))) return;
    await notices.add(trx, notice);
    if (!mailOn || !to.email || !to.email_notifications) return;
    const letter = mailOf(
      {
        kind: notice.kind,
        projectId: notice.project_id!,
        projectName: notice.project_name,
        version: notice.version,
        reason: notice.reason,
      },
      mail.publicUrl,
    );
    await outbox.enqueue(trx, { user_id: to.id, ...letter }, notice.created_at);
  }

  async function send(row: { id: number; user_id: number; subject: string; body: string; attempts: number }) {
    const at = () => now();
    const to = await notices.recipient(db, row.user_id);
    // Turned off, address removed or account disabled since: nothing to send.
    if (!to?.email || !to.email_notifications || to.disabled) {
      await outbox.settle(db, row.id, opts.holder, { status: 'skipped', error: 'recipient opted out' }, at());
      return;
    }
    try {
      await (await transporter()).sendMail({
        from: mail.from,
        to: to.email,
        subject: row.subject,
        text: row.body,
      });
      await outbox.settle(db, row.id, opts.holder, { status: 'sent' }, at());
    } catch (err) {
      const error = String((err as Error)?.message ?? err).slice(0, 500);
      if (row.attempts >= mail.maxAttempts) {
        log('error', 'e-mail given up', { id: row.id, error });
        await outbox.settle(db, row.id, opts.holder, { status: 'failed', error }, at());
        return;
      }
      const wait = mail.retryBaseMs * 2 ** (row.attempts - 1);
      log('warn', 'e-mail not sent, will try again', { id: row.id, error, retryInMs: wait });
      await outbox.settle(
        db,
        row.id,
        opts.holder,
        { status: 'queued', error, runAfter: new Date(Date.now() + wait).toISOString() },
        at(),
      );
    }
  }

  /** Sends every due e-mail, one at a time (an SMTP server is not a place to race). */
  async function pump(): Promise<void> {
    while (!stopped) {
      const t = Date.now();
      const row = await outbox.take(
        db,
        opts.holder,
        new Date(t).toISOString(),
        new Date(t + LEASE_MS).toISOString(),
      );
      if (!row) break;
      await send(row);
    }
    if (Date.now() - lastPurge > 3_600_000) {
      lastPurge = Date.now();
      await outbox.purgeDone(db, new Date(Date.now() - KEEP_DONE_MS).toISOString());
    }
  }

  const poke = (): Promise<void> => {
    if (!mailOn || stopped) return Promise.resolve();
    pumping ??= pump()
      .catch((err: unknown) => log('error', 'mail outbox', { err }))
      .finally(() => {
        pumping = null;
      });
    return pumping;
  };

  return {
    /** Whether e-mail is sent at all (SMTP_URL). */
    mailOn,
    /** Where the worker reports failed sends (the app's log, once it exists). */
    logTo(fn: Log): void {
      log = fn;
    },

    /** Writes the notices (and e-mails) of an event in the caller's transaction. */
    async notify(trx: DB, event: NotificationEvent): Promise<void> {
      const at = now();
      // A version decided no longer waits: every admin's notice of it is read. A project taken down
      // or deleted waits for nothing: every notice of its uploads is (docs/notifications.md).
      if (
        (event.kind === 'approved' || event.kind === 'version_live' || event.kind === 'rejected') &&
        event.version !== null
      )
        await notices.settleReviews(trx, event.projectId, event.version, at);
      if (event.kind === 'taken_down' || event.kind === 'deleted')
        await notices.settleReviews(trx, event.projectId, null, at);
      if (event.kind === 'upload_pending') {
        for (const admin of await notices.reviewers(trx, event.actorId)) {
          await tell(
            trx,
            admin,
            {
              user_id: admin.id,
              kind: 'upload_pending',
              project_id: event.projectId,
              project_name: event.projectName,
              version: event.version,
              reason: null,
              created_at: at,
            },
            true,
          );
        }
        return;
      }
      // Nobody is told of what they did themselves (an owner's own rollback).
      if (event.ownerId === event.actorId) return;
      const owner = await notices.recipient(trx, event.ownerId);
      if (!owner) return;
      await tell(
        trx,
        owner,
        {
          user_id: owner.id,
          kind: event.kind,
          project_id: event.projectId,
          project_name: event.projectName,
          version: event.version,
          reason: event.reason ?? null,
          created_at: at,
        },
        false,
      );
    },

    /** After the action's commit: deliver what it queued now rather than at the next poll. */
    delivered(): void {
      void poke();
    },

    async list(actor: Actor, q: { page: number; page_size: number; unread: boolean }) {
      const [{ rows, total }, unread] = await Promise.all([
        notices.page(db, actor.id, {
          unread: q.unread,
          limit: q.page_size,
          offset: (q.page - 1) * q.page_size,
        }),
        notices.unreadCount(db, actor.id),
      ]);
      return { rows: rows.map(presentNotification), total, unread };
    },

    unreadCount: (actor: Actor) => notices.unreadCount(db, actor.id),

    /** Marks one of the actor's notices read; another account's id is a 404, as a missing one. */
    async markRead(actor: Actor, id: number): Promise<number> {
      const marked = await notices.markRead(db, actor.id, id, now());
      if (marked === 0 && !(await notices.exists(db, actor.id, id))) throw new NotFound(m.notFound);
      return marked;
    },

    markAllRead: (actor: Actor) => notices.markAllRead(db, actor.id, now()),

    /** E-mails waiting to be sent. */
    waiting: () => outbox.waiting(db),

    /** Sends what is due now (tests; the worker's timer does the same). */
    deliverDue: poke,

    start(): void {
      if (!mailOn || timer) return;
      stopped = false;
      timer = setInterval(() => void poke(), mail.pollMs);
      timer.unref();
      void poke();
    },

    async stop(): Promise<void> {
      stopped = true;
      clearInterval(timer);
      timer = undefined;
      await pumping;
      transport?.close();
    },
  };
}
export type NotificationService = ReturnType<typeof createNotificationService>;
