import { describe, expect, it } from 'vitest';
import {
  AUDIT_ACTION_GROUPS,
  AUDIT_ACTION_KEYS,
  AUDIT_TARGETS,
  auditActionOf,
  isAuditAction,
} from './audit.js';

describe('the audit actions', () => {
  it('each has a Chinese label of its own, a known target and a group the filter offers', () => {
    const labels = AUDIT_ACTION_KEYS.map((action) => auditActionOf(action).label);
    expect(new Set(labels).size).toBe(labels.length);
    for (const action of AUDIT_ACTION_KEYS) {
      const d = auditActionOf(action);
      expect(d.label.trim(), action).not.toBe('');
      expect(Object.keys(AUDIT_TARGETS), action).toContain(d.target);
      expect(Object.keys(AUDIT_ACTION_GROUPS), action).toContain(action.split('.')[0]);
    }
  });

  it('knows its own keys and nothing else', () => {
    expect(isAuditAction('review.approve')).toBe(true);
    expect(isAuditAction('review')).toBe(false);
    expect(isAuditAction('toString')).toBe(false);
  });
});
