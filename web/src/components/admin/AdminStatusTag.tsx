import './admin.css';
import { ADMIN_STATUS_LABELS, type ProjectStatus, STATUS_COLORS } from '@sitehall/contracts';
import { Tag } from 'antd';

/** A project's status as admin screens name it: 待审核, 已通过, 已发布 or 已拒绝. */
export function AdminStatusTag({ status }: { status: ProjectStatus }) {
  return (
    <Tag color={STATUS_COLORS[status]} className="admin-status-tag">
      {ADMIN_STATUS_LABELS[status]}
    </Tag>
  );
}
