/** Audit log rows as the audit log page shows them. */
import { type AuditLogDto, auditActionOf, isAuditAction } from '@sitehall/contracts';
import type { Selectable } from 'kysely';
import type { AuditLogsTable } from '../db/types.js';

/** Names of an entry's targets as they are now, by `${target_type}:${target_id}` (AuditRepository.targetNames). */
export type TargetNames = ReadonlyMap<string, string>;

export function presentAuditLog(
  row: Selectable<AuditLogsTable>,
  names: TargetNames = new Map(),
): AuditLogDto {
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
    target_name: targetName(row, names),
    detail,
    ip: row.ip,
    created_at: row.created_at,
  };
}

/** The name now, or the one a deletion recorded (AuditRepository.targetNames); null for other targets. */
function targetName(row: Selectable<AuditLogsTable>, names: TargetNames): string | null {
  if (row.target_type === null || row.target_id === null) return null;
  return names.get(`${row.target_type}:${row.target_id}`) ?? null;
}
