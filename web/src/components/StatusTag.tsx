import { type ProjectStatus, STATUS_COLORS, STATUS_LABELS } from '@sitehall/contracts';
import { Tag } from 'antd';

/**
 * A project's status as its owner reads it: 待审核, 已发布, 精选, 已拒绝 or 已下线, the same words as
 * the admin's screens (docs/product.md "Statuses and transitions").
 */
export function StatusTag({ status }: { status: ProjectStatus }) {
  return (
    <Tag color={STATUS_COLORS[status]} className="status-tag">
      {STATUS_LABELS[status]}
    </Tag>
  );
}
