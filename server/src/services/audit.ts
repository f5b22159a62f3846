/**
 * The audit log: every admin action, sign-in success and failure, password reset, role change,
 * setting change, upload and deletion, with who, what, when and from where. Append-only through
 * the application: this service and its repository can add rows and read them, nothing else.
 */
import type { AuditActionOn, AuditLogFilters, AuditTargetType } from '@sitehall/contracts';
import type { DB } from '../db/database.js';
import { now } from '../db/database.js';
import type { AuditFilter, AuditRepository } from '../repositories/audit.js';

interface AuditEntryAbout<T extends AuditTargetType> {
  actor?: { id: number; username: string } | null;
  /** One of contracts' AUDIT_ACTIONS, about the kind of target it names. */
  action: AuditActionOn<T>;
  targetType: T;
  targetId?: string | number;
  detail?: Record<string, unknown>;
  ip?: string;
}

export type AuditEntry = { [T in AuditTargetType]: AuditEntryAbout<T> }[AuditTargetType];

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

export function createAuditService(db: DB, repo: AuditRepository) {
  return {
    async record(e: AuditEntry, trx: DB = db): Promise<void> {
      await repo.insert(trx, {
        actor_id: e.actor?.id ?? null,
        actor_name: e.actor?.username ?? null,
        action: e.action,
        target_type: e.targetType ?? null,
        target_id: e.targetId === undefined ? null : String(e.targetId),
        detail: e.detail ? JSON.stringify(e.detail) : null,
        ip: e.ip ?? null,
        created_at: now(),
      });
    },

    /**
     * Whether this actor deleted this project within the last `withinMs`: a repeated delete (a
     * client or proxy retrying one whose answer was lost) is then answered as the first was.
     */
    deletedRecently(actorId: number, projectId: number, withinMs: number): Promise<boolean> {
      const since = new Date(Date.now() - withinMs).toISOString();
      return repo.didSince(db, actorId, 'project.delete', String(projectId), since);
    },

    /** A page of entries, newest first. A date alone in `to` includes that whole (UTC) day. */
    async list(q: AuditLogFilters) {
      const filter: AuditFilter = {
        actor: q.actor,
        actorId: q.actor_id,
        action: q.action,
        targetType: q.target_type,
        targetId: q.target_id,
        ip: q.ip,
        from: q.from ? new Date(q.from).toISOString() : undefined,
        before: q.to ? endOf(q.to) : undefined,
      };
      const { rows, total } = await repo.list(db, filter, q.page, q.page_size);
      return { rows, total, names: await repo.targetNames(db, rows) };
    },
  };
}
export type AuditService = ReturnType<typeof createAuditService>;

/** The first instant after `to`: the next day for a date, the next millisecond for a time. */
function endOf(to: string): string {
  const t = new Date(to).getTime();
  return new Date(DATE_ONLY.test(to) ? t + 24 * 3600_000 : t + 1).toISOString();
}
