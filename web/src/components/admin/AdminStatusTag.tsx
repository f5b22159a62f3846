import './admin.css';
import { type ProjectStatus, STATUS_COLORS, STATUS_LABELS } from '@sitehall/contracts';
import { Tag } from 'antd';

/** A project's status on admin screens: 待审核, 已发布, 精选, 已拒绝 or 已下线 (STATUS_LABELS). */
export function AdminStatusTag({ status }: { status: ProjectStatus }) {
  return (
    <Tag color={STATUS_COLORS[status]} className="admin-status-tag">
      {STATUS_LABELS[status]}
    </Tag>
  );
}
