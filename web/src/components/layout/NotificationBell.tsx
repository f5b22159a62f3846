import { BellOutlined } from '@ant-design/icons';
import { NavLink } from 'react-router-dom';
import { useUnreadNotifications } from '../../api/notifications';

/**
 * The bell in the navigation bar: a link to the notices page with the unread count (docs/notifications.md).
 * Drawn without antd, as the rest of the bar.
 */
export function NotificationBell() {
  const { data: unread = 0 } = useUnreadNotifications(true);
  const label = unread > 0 ? `通知（${unread} 条未读）` : '通知';
  return (
    <NavLink
      to="/notifications"
      className="sh-btn sh-btn--text notification-bell"
      aria-label={label}
      title={label}
    >
      <BellOutlined aria-hidden />
      {unread > 0 && (
        <span className="notification-bell__count" aria-hidden>
          {unread > 99 ? '99+' : unread}
        </span>
      )}
    </NavLink>
  );
}
