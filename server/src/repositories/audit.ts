/** The audit log table: rows are only ever added and read (no update or delete exists). */
import type { Insertable } from 'kysely';
import { sql } from 'kysely';
import type { DB } from '../db/database.js';
import { likePattern } from '../db/like.js';
import type { AuditLogsTable } from '../db/types.js';

export interface AuditFilter {
  /** Part of the actor's username, any case. */
  actor?: string;
  actorId?: number;
  /** One action ('review.approve'), or a group without a dot ('review'). */
  action?: string;
  targetType?: string;
  targetId?: string;
  ip?: string;
  /** ISO timestamps: from inclusive, before exclusive. */
  from?: string;
  before?: string;
}

export function createAuditRepository() {
  return {
    async insert(trx: DB, row: Insertable<AuditLogsTable>): Promise<void> {
      await trx.insertInto('audit_logs').values(row).execute();
    },

    /** Whether this actor did `action` to the target since `since` (an ISO time). */
    async didSince(
      db: DB,
      actorId: number,
      action: string,
      targetId: string,
      since: string,
    ): Promise<boolean> {
      const row = await db
        .selectFrom('audit_logs')
        .select('id')
        .where('actor_id', '=', actorId)
        .where('action', '=', action)
        .where('target_id', '=', targetId)
        .where('created_at', '>=', since)
        .limit(1)
        .executeTakeFirst();
      return row !== undefined;
    },

    async list(db: DB, filter: AuditFilter, page: number, pageSize: number) {
      let q = db.selectFrom('audit_logs');
      if (filter.actor) {
        q = q.where(
          sql<boolean>`lower(coalesce(actor_name, '')) like ${likePattern(filter.actor)} escape '\\'`,
        );
      }
      if (filter.actorId !== undefined) q = q.where('actor_id', '=', filter.actorId);
      if (filter.action) {
        q = filter.action.includes('.')
          ? q.where('action', '=', filter.action)
          : q.where(sql<boolean>`action like ${`${escapeLike(filter.action)}.%`} escape '\\'`);
      }
      if (filter.targetType) q = q.where('target_type', '=', filter.targetType);
      if (filter.targetId) q = q.where('target_id', '=', filter.targetId);
      if (filter.ip) q = q.where('ip', '=', filter.ip);
      if (filter.from) q = q.where('created_at', '>=', filter.from);
      if (filter.before) q = q.where('created_at', '<', filter.before);
      const total = await q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      const rows = await q
        .selectAll()
        .orderBy('id', 'desc')
        .limit(pageSize)
        .offset((page - 1) * pageSize)
        .execute();
      return { rows, total: Number(total.n) };
    },

    /**
     * The current names of the users and projects these rows are about, keyed `user:3` / `project:7`
     * (for the presenter); ids that no longer exist are simply absent.
     */
    async targetNames(
      db: DB,
      rows: readonly { target_type: string | null; target_id: string | null }[],
    ): Promise<{ names: Map<string, string>; gone: Set<string> }> {
      const ids = (type: string) => [
        ...new Set(
          rows
            .filter(
              (r) => r.target_type === type && r.target_id !== null && /^[1-9]\d{0,14}$/.test(r.target_id),
            )
            .map((r) => Number(r.target_id)),
        ),
      ];
      const names = new Map<string, string>();
      // Users and projects asked for that no longer exist: named, never linked.
      const gone = new Set<string>();
      const userIds = ids('user');
      if (userIds.length > 0) {
        const users = await db
          .selectFrom('users')
          .select(['id', 'username'])
          .where('id', 'in', userIds)
          .execute();
        for (const u of users) names.set(`user:${u.id}`, u.username);
      }
      const projectIds = ids('project');
      if (projectIds.length > 0) {
        const projects = await db
          .selectFrom('projects')
          .select(['id', 'name'])
          .where('id', 'in', projectIds)
          .execute();
        for (const p of projects) names.set(`project:${p.id}`, p.name);
      }
      // Deleted since: the name their deletion recorded (user.delete's username, project.delete's name).
      for (const [type, action, key, all] of [
        ['user', 'user.delete', 'username', userIds],
        ['project', 'project.delete', 'name', projectIds],
      ] as const) {
        const missing = all.filter((id) => !names.has(`${type}:${id}`)).map(String);
        if (missing.length === 0) continue;
        const deletions = await db
          .selectFrom('audit_logs')
          .select(['target_id', 'detail'])
          .where('action', '=', action)
          .where('target_type', '=', type)
          .where('target_id', 'in', missing)
          .execute();
        for (const d of deletions) {
          const recorded = parseDetail(d.detail)?.[key];
          if (typeof recorded === 'string') names.set(`${type}:${d.target_id}`, recorded);
        }
        for (const id of missing) gone.add(`${type}:${id}`);
      }
      return { names, gone };
    },
  };
}
export type AuditRepository = ReturnType<typeof createAuditRepository>;

function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function parseDetail(detail: string | null): Record<string, unknown> | null {
  if (!detail) return null;
  try {
    const parsed: unknown = JSON.parse(detail);
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
