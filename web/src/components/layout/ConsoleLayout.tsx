import { CloudUploadOutlined, DashboardOutlined, FolderOpenOutlined, UserOutlined } from '@ant-design/icons';
import { type SideNavItem, SideNavLayout } from './SideNavLayout';

const items: SideNavItem[] = [
  { to: '/dashboard', label: '控制台', icon: <DashboardOutlined aria-hidden /> },
  { to: '/projects', label: '我的项目', icon: <FolderOpenOutlined aria-hidden /> },
  { to: '/upload', label: '上传项目', icon: <CloudUploadOutlined aria-hidden /> },
  { to: '/profile', label: '个人设置', icon: <UserOutlined aria-hidden /> },
];

/** Dashboard, projects, project detail, upload and profile: the signed-in user's console. */
export function ConsoleLayout() {
  return <SideNavLayout title="我的工作台" items={items} />;
}
