import { ROLE_LABELS, type Role } from '@sitehall/contracts';
import { Tag } from 'antd';

/** 管理员 or 用户. */
export function RoleTag({ role }: { role: Role }) {
  return (
    <Tag color={role === 'admin' ? 'geekblue' : 'default'} className="role-tag">
      {ROLE_LABELS[role]}
    </Tag>
  );
}
