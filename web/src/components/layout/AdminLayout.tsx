import {
  AuditOutlined,
  DashboardOutlined,
  FileSearchOutlined,
  GlobalOutlined,
  ProjectOutlined,
  SettingOutlined,
  TeamOutlined,
} from '@ant-design/icons';
import { type SideNavItem, SideNavLayout } from './SideNavLayout';

const items: SideNavItem[] = [
  { to: '/admin/dashboard', label: '概览', icon: <DashboardOutlined aria-hidden />, aliases: ['/admin'] },
  { to: '/admin/reviews', label: '审核', icon: <AuditOutlined aria-hidden /> },
  { to: '/admin/projects', label: '项目', icon: <ProjectOutlined aria-hidden /> },
  { to: '/admin/users', label: '用户', icon: <TeamOutlined aria-hidden /> },
  { to: '/admin/domains', label: '自定义域名', icon: <GlobalOutlined aria-hidden /> },
  { to: '/admin/settings', label: '设置', icon: <SettingOutlined aria-hidden /> },
  { to: '/admin/audit-logs', label: '审计日志', icon: <FileSearchOutlined aria-hidden /> },
];

/** Every /admin page: the admin side menu (docs/product.md §2, admin only). */
export function AdminLayout() {
  return <SideNavLayout title="管理后台" items={items} />;
}
