/** Audit log rows as the audit log page shows them. */
import { type AuditLogDto, auditActionOf, isAuditAction } from '@sitehall/contracts';
import type { Selectable } from 'kysely';
import type { AuditLogsTable } from '../db/types.js';

export function presentAuditLog(row: Selectable<AuditLogsTable>): AuditLogDto {
  let detail: Record<string, unknown> | null = null;
  if (row.detail) {
    try {
      detail = JSON.parse(row.detail) as Record<string, unknown>;
    } catch {
      detail = { text: row.detail };
    }
  }
  return {
    id: row.id,
    actor: row.actor_name === null ? null : { id: row.actor_id, username: row.actor_name },
    action: row.action,
    // An action no longer written (kept in old rows) shows its key.
    action_label: isAuditAction(row.action) ? auditActionOf(row.action).label : row.action,
    target_type: row.target_type,
    target_id: row.target_id,
    detail,
    ip: row.ip,
    created_at: row.created_at,
  };
}
