/** Audit log rows as the audit log page shows them. */
import { type AuditLogDto, auditActionOf, isAuditAction } from '@sitehall/contracts';
import type { Selectable } from 'kysely';
import type { AuditLogsTable } from '../db/types.js';

/**
 * Names of entries' targets as they are now (or as their deletion recorded them), by
 * `${target_type}:${target_id}`, and which of those users and projects no longer exist
 * (AuditRepository.targetNames).
 */
export interface TargetNames {
  names: ReadonlyMap<string, string>;
  gone: ReadonlySet<string>;
}

export function presentAuditLog(
  row: Selectable<AuditLogsTable>,
  targets: TargetNames = { names: new Map(), gone: new Set() },
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
    target_name: targetName(row, targets.names),
    target_gone: targets.gone.has(`${row.target_type}:${row.target_id}`),
    detail,
    ip: row.ip,
    created_at: row.created_at,
  };
}

/** The name now, or the one a deletion recorded (AuditRepository.targetNames); null for other targets. */
function targetName(row: Selectable<AuditLogsTable>, names: TargetNames['names']): string | null {
  if (row.target_type === null || row.target_id === null) return null;
  return names.get(`${row.target_type}:${row.target_id}`) ?? null;
}
