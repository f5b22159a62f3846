/**
 * 通知 (docs/notifications.md): the signed-in account's notices, newest first: unread ones marked,
 * each with its reason where it has one and a link to the project (opening it marks it read), a
 * filter for unread ones, and 全部标为已读.
 */
import { BellOutlined, CheckOutlined, ReloadOutlined } from '@ant-design/icons';
import {
  messages,
  NOTIFICATION_REASON_LABELS,
  type NotificationDto,
  type NotificationKind,
} from '@sitehall/contracts';
import {
  Alert,
  App,
  Badge,
  Button,
  Card,
  Empty,
  Pagination,
  Segmented,
  Skeleton,
  Tag,
  Typography,
} from 'antd';
import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { toApiError } from '../../api/client';
import {
  type NotificationsQuery,
  useMarkAllNotificationsRead,
  useMarkNotificationRead,
  useNotifications,
} from '../../api/notifications';
import { PageHeader } from '../../components/PageHeader';
import { formatDateTime } from '../../lib/format';
import './notifications.css';

const KIND_TAGS: Record<NotificationKind, { label: string; color: string }> = {
  approved: { label: '已上线', color: 'success' },
  version_live: { label: '新版本上线', color: 'success' },
  rejected: { label: '未通过', color: 'error' },
  taken_down: { label: '已下线', color: 'warning' },
  rolled_back: { label: '已回滚', color: 'processing' },
  upload_pending: { label: '待审核', color: 'gold' },
  deleted: { label: '已删除', color: 'red' },
};

const PAGE_SIZE = 20;

export function NotificationsPage() {
  const { message } = App.useApp();
  const navigate = useNavigate();
  const [filter, setFilter] = useState<'all' | 'unread'>('all');
  const [page, setPage] = useState(1);
  const query: NotificationsQuery = {
    page,
    page_size: PAGE_SIZE,
    ...(filter === 'unread' ? { unread: '1' } : {}),
  };
  const list = useNotifications(query);
  const markRead = useMarkNotificationRead();
  const markAll = useMarkAllNotificationsRead();
  const unread = list.data?.unread_count ?? 0;

  const open = (n: NotificationDto) => {
    if (!n.read) markRead.mutate(n.id);
    if (n.link) navigate(n.link);
  };
  const readAll = () =>
    markAll.mutate(undefined, {
      onSuccess: () => message.success(messages.notification.allRead),
      onError: (err) => message.error(toApiError(err).message),
    });

  return (
    <>
      <PageHeader
        title="通知"
        description="审核结果、站点上线与下线、回滚等消息。"
        extra={
          <Button
            icon={<CheckOutlined aria-hidden />}
            onClick={readAll}
            disabled={unread === 0}
            loading={markAll.isPending}
          >
            全部标为已读
          </Button>
        }
      />
      <Card>
        <div className="notifications__toolbar">
          <Segmented
            aria-label="筛选通知"
            value={filter}
            onChange={(v) => {
              setFilter(v as 'all' | 'unread');
              setPage(1);
            }}
            options={[
              { value: 'all', label: '全部' },
              { value: 'unread', label: `未读 ${unread}` },
            ]}
          />
        </div>
        {list.isPending ? (
          <Skeleton active paragraph={{ rows: 4 }} />
        ) : list.isError ? (
          <Alert
            type="error"
            showIcon
            title={toApiError(list.error).message}
            action={
              <Button size="small" icon={<ReloadOutlined aria-hidden />} onClick={() => list.refetch()}>
                重试
              </Button>
            }
          />
        ) : list.data.notifications.length === 0 ? (
          <Empty
            image={<BellOutlined aria-hidden className="notifications__empty-icon" />}
            description={filter === 'unread' ? '没有未读通知' : '还没有通知'}
          />
        ) : (
          <>
            <ul className="notification-list" aria-label="通知列表">
              {list.data.notifications.map((n) => (
                <li
                  key={n.id}
                  className={n.read ? 'notification' : 'notification notification--unread'}
                  data-testid="notification"
                >
                  <Badge dot={!n.read} aria-label={n.read ? '已读' : '未读'} className="notification__dot" />
                  <div className="notification__body">
                    <span className="notification__title">
                      <Tag color={KIND_TAGS[n.kind].color}>{KIND_TAGS[n.kind].label}</Tag>
                      <Typography.Text strong={!n.read}>{n.title}</Typography.Text>
                    </span>
                    {n.reason && (
                      <div className="notification__reason">
                        {NOTIFICATION_REASON_LABELS[n.kind]}：{n.reason}
                      </div>
                    )}
                    <Typography.Text type="secondary" className="notification__time">
                      {formatDateTime(n.created_at)}
                    </Typography.Text>
                  </div>
                  {n.link ? (
                    <Button type="link" className="notification__open" onClick={() => open(n)}>
                      {n.kind === 'upload_pending' ? '去审核' : '查看项目'}
                    </Button>
                  ) : (
                    // A notice with nowhere to lead (a deleted project) is read here: it counted in
                    // the bell until 全部标为已读, with nothing to press on it.
                    !n.read && (
                      <Button
                        type="link"
                        className="notification__open"
                        aria-label={`标为已读：${n.title}`}
                        loading={markRead.isPending && markRead.variables === n.id}
                        onClick={() => open(n)}
                      >
                        标为已读
                      </Button>
                    )
                  )}
                </li>
              ))}
            </ul>
            {list.data.pagination.total_pages > 1 && (
              <Pagination
                className="notification-list__pages"
                current={page}
                pageSize={PAGE_SIZE}
                total={list.data.pagination.total_count}
                onChange={setPage}
                showSizeChanger={false}
              />
            )}
          </>
        )}
      </Card>
    </>
  );
}
