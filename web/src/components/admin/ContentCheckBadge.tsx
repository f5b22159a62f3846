import './admin.css';
import {
  CONTENT_CHECK_LEVEL_LABELS,
  type ContentCheckLevel,
  type ContentCheckSeverity,
  type ContentCheckSummary,
  messages,
} from '@sitehall/contracts';
import { Tag, Tooltip, Typography } from 'antd';

export const SEVERITIES: readonly ContentCheckSeverity[] = ['high', 'medium', 'low', 'info'];

export const LEVEL_COLORS: Record<ContentCheckLevel, string> = {
  high: 'red',
  medium: 'orange',
  low: 'gold',
  info: 'blue',
  clean: 'default',
};

/** "高风险 2 · 提示 1": the counts of every severity found. */
export function describeCounts(counts: Record<ContentCheckSeverity, number>): string {
  return SEVERITIES.filter((s) => counts[s] > 0)
    .map((s) => `${CONTENT_CHECK_LEVEL_LABELS[s]} ${counts[s]}`)
    .join(' · ');
}

/**
 * The content check of a project's newest version: its risk level and how many risk findings are at
 * that level (the other levels are in the tooltip), and beside it the usability problems (a missing
 * file, a script error: findings above info), so a broken site does not read as a clean one.
 */
export function ContentCheckBadge({ check }: { check: ContentCheckSummary | null }) {
  if (!check) {
    return <Tag className="content-check-badge">{messages.review.contentCheck.notChecked}</Tag>;
  }
  const counts = describeCounts(check.counts);
  const atLevel = check.level === 'clean' ? 0 : check.counts[check.level];
  const problems = check.usability_problems ?? 0;
  return (
    <span className="content-check-badges">
      <Tooltip title={counts || undefined}>
        <Tag color={LEVEL_COLORS[check.level]} className="content-check-badge" data-level={check.level}>
          {CONTENT_CHECK_LEVEL_LABELS[check.level]}
          {atLevel > 0 && <span className="content-check-badge__count">{atLevel}</span>}
        </Tag>
      </Tooltip>
      {problems > 0 && (
        <Tag color="gold" className="content-check-badge content-check-badge--usability">
          {messages.review.contentCheck.usabilityTitle}
          <span className="content-check-badge__count">{problems}</span>
        </Tag>
      )}
    </span>
  );
}

/**
 * Why the newest version got its level, in the check's own sentence: the reviewer reads what
 * decided a high or medium badge without opening the report (docs/content-check.md "Levels").
 */
export function ContentCheckReason({ check }: { check: ContentCheckSummary | null }) {
  if (!check || check.level === 'clean') return null;
  return (
    <Typography.Text
      type={check.level === 'high' ? 'danger' : check.level === 'medium' ? 'warning' : 'secondary'}
      ellipsis={{ tooltip: check.reason }}
      className="content-check-reason"
      data-level={check.level}
    >
      {check.reason}
    </Typography.Text>
  );
}
