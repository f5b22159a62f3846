import './admin.css';
import {
  CONTENT_CHECK_LEVEL_LABELS,
  type ContentCheckLevel,
  type ContentCheckSeverity,
  type ContentCheckSummary,
  messages,
} from '@sitehall/contracts';
import { Tag, Tooltip } from 'antd';

export const SEVERITIES: readonly ContentCheckSeverity[] = ['high', 'medium', 'low', 'info'];

export const LEVEL_COLORS: Record<ContentCheckLevel, string> = {
  high: 'red',
  medium: 'orange',
  low: 'gold',
  info: 'blue',
  clean: 'green',
};

/** "高风险 2 · 提示 1": the counts of every severity found. */
export function describeCounts(counts: Record<ContentCheckSeverity, number>): string {
  return SEVERITIES.filter((s) => counts[s] > 0)
    .map((s) => `${CONTENT_CHECK_LEVEL_LABELS[s]} ${counts[s]}`)
    .join(' · ');
}

/** The content check of a project's newest version: its worst level and how many findings of each kind. */
export function ContentCheckBadge({ check }: { check: ContentCheckSummary | null }) {
  if (!check) {
    return <Tag className="content-check-badge">{messages.review.contentCheck.notChecked}</Tag>;
  }
  const counts = describeCounts(check.counts);
  const total = SEVERITIES.reduce((sum, s) => sum + check.counts[s], 0);
  return (
    <Tooltip title={counts || undefined}>
      <Tag color={LEVEL_COLORS[check.level]} className="content-check-badge">
        {CONTENT_CHECK_LEVEL_LABELS[check.level]}
        {total > 0 && <span className="content-check-badge__count">{total}</span>}
      </Tag>
    </Tooltip>
  );
}
