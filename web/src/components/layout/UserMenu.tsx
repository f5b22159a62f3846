import { DashboardOutlined, DownOutlined, LogoutOutlined, UserOutlined } from '@ant-design/icons';
import { messages } from '@sitehall/contracts';
import { Dropdown, type MenuProps, message, Typography } from 'antd';
import { useNavigate } from 'react-router-dom';
import { useAuth } from '../../hooks/useAuth';
import { RoleTag } from '../RoleTag';
import { UserAvatar } from '../UserAvatar';

/** The signed-in user's menu in the navigation bar (docs/product.md §2 "Navigation bar"). */
export function UserMenu() {
  const { user, logout } = useAuth();
  const navigate = useNavigate();
  if (!user) return null;

  // antd's static message, not App.useApp's: signing out removes this menu (and the message host
  // around it) at once, and the home page it leads to has none of its own (docs/decisions/web-app.md
  // "Web app"). AntdShell gives static messages the app's theme.
  const signOut = async () => {
    const ok = await logout();
    if (ok) message.success(messages.auth.logoutSuccess);
    else message.error(messages.auth.logoutFailed);
  };

  const items: MenuProps['items'] = [
    { key: '/dashboard', icon: <DashboardOutlined aria-hidden />, label: '控制台' },
    { key: '/profile', icon: <UserOutlined aria-hidden />, label: '个人设置' },
    { type: 'divider' },
    { key: 'logout', icon: <LogoutOutlined aria-hidden />, label: '登出', danger: true },
  ];
  const onClick: MenuProps['onClick'] = ({ key }) => {
    if (key === 'logout') void signOut();
    else navigate(key);
  };

  return (
    <Dropdown
      trigger={['click']}
      placement="bottomRight"
      menu={{ items, onClick }}
      popupRender={(menu) => (
        <div className="user-menu">
          <div className="user-menu__profile">
            <UserAvatar user={user} size={44} />
            <div className="user-menu__identity">
              <div className="user-menu__name-row">
                <Typography.Text strong className="user-menu__name" ellipsis>
                  {user.username}
                </Typography.Text>
                <RoleTag role={user.role} />
              </div>
              <Typography.Text type="secondary" className="user-menu__email" ellipsis>
                {user.email ?? `邮箱${messages.auth.emailNotSet}`}
              </Typography.Text>
            </div>
          </div>
          {menu}
        </div>
      )}
    >
      <button type="button" className="user-menu-trigger" aria-label="用户菜单">
        <UserAvatar user={user} size={32} />
        <span className="user-menu-trigger__name">{user.username}</span>
        <DownOutlined aria-hidden className="user-menu-trigger__caret" />
      </button>
    </Dropdown>
  );
}
