import { OWNER_STATUS_LABELS, type ProjectStatus, STATUS_COLORS } from '@sitehall/contracts';
import { Tag } from 'antd';

/**
 * A project's status as its owner reads it: 待审核, 已发布 or 已拒绝. Approved and published are
 * both live, so both read 已发布 in the same colour (docs/product.md "Statuses and transitions").
 */
export function StatusTag({ status }: { status: ProjectStatus }) {
  const color = status === 'published' ? STATUS_COLORS.approved : STATUS_COLORS[status];
  return (
    <Tag color={color} className="status-tag">
      {OWNER_STATUS_LABELS[status]}
    </Tag>
  );
}
