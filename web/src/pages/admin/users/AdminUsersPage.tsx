import {
  ApiOutlined,
  CheckCircleOutlined,
  DatabaseOutlined,
  DeleteOutlined,
  KeyOutlined,
  LockOutlined,
  StopOutlined,
  UnlockOutlined,
  UserAddOutlined,
} from '@ant-design/icons';
import {
  type AdminUserDto,
  format,
  formatBytes,
  MB,
  messages,
  type PasswordResetData,
  ROLE_LABELS,
  ROLES,
  type Role,
  USER_STORAGE_BOUNDS,
  type UserListQuery,
} from '@sitehall/contracts';
import {
  Alert,
  App,
  Button,
  Card,
  InputNumber,
  Modal,
  Popconfirm,
  Segmented,
  Select,
  Space,
  type TableProps,
  Tag,
  Tooltip,
  Typography,
} from 'antd';
import { useState } from 'react';
import { errorMessage } from '../../../api/client';
import {
  useAdminUsers,
  useDeleteUser,
  useResetUserPassword,
  useUnlockUser,
  useUpdateUser,
} from '../../../api/users';
import { PagedTable } from '../../../components/admin/PagedTable';
import { SearchBox } from '../../../components/admin/SearchBox';
import { useListAddress, useStayOnExistingPage } from '../../../components/admin/useListAddress';
import { GeneratedPassword } from '../../../components/GeneratedPassword';
import { LinkButton } from '../../../components/LinkButton';
import { PageHeader } from '../../../components/PageHeader';
import { StorageUsage } from '../../../components/StorageUsage';
import { UserAvatar } from '../../../components/UserAvatar';
import { useAuth } from '../../../hooks/useAuth';
import { useWideLayout } from '../../../hooks/useWideLayout';
import { formatDate, formatDateTime } from '../../../lib/format';
import { UserTokensModal } from './UserTokensModal';

const PAGE_SIZES = [10, 20, 50, 100];
const DEFAULT_PAGE_SIZE = 20;
type RoleFilter = Role | 'all';

const ROLE_FILTERS: readonly RoleFilter[] = ['all', ...ROLES];

/** The users list's view in the address (page, search, role), and its server query. */
function useUserListParams() {
  const list = useListAddress<{ role: RoleFilter }>({
    defaultPageSize: DEFAULT_PAGE_SIZE,
    pageSizes: PAGE_SIZES,
    filters: { role: ROLE_FILTERS },
  });
  const { role } = list.filters;
  const query: UserListQuery = {
    page: list.page,
    page_size: list.pageSize,
    ...(list.search ? { search: list.search } : {}),
    ...(role !== 'all' ? { role } : {}),
  };
  return { ...list, role, query };
}

interface RowActionsProps {
  user: AdminUserDto;
  isSelf: boolean;
  onPasswordReset: (result: PasswordResetData) => void;
  onEditQuota: (user: AdminUserDto) => void;
  onShowTokens: (user: AdminUserDto) => void;
}

const QUOTA_UNITS = { MB, GB: 1024 * MB } as const;
type QuotaUnit = keyof typeof QUOTA_UNITS;
const amountIn = (bytes: number, unit: QuotaUnit) => Math.round((bytes / QUOTA_UNITS[unit]) * 100) / 100;

/**
 * An account's own storage quota, typed in MB or GB as the admin chooses (a quota under 1 GB opens
 * in MB); empty gives it the platform's setting again.
 */
function QuotaModal({ user, onClose }: { user: AdminUserDto; onClose: () => void }) {
  const { message } = App.useApp();
  const updateUser = useUpdateUser();
  const quota = user.storage_quota_bytes;
  const [unit, setUnit] = useState<QuotaUnit>(quota !== null && quota < QUOTA_UNITS.GB ? 'MB' : 'GB');
  const [value, setValue] = useState<number | null>(quota === null ? null : amountIn(quota, unit));
  // The number typed means the unit chosen: changing the unit reinterprets it, as in any size field.
  const [touched, setTouched] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const invalid = format(messages.auth.storageQuotaInvalid, {
    min: formatBytes(USER_STORAGE_BOUNDS.min),
    max: formatBytes(USER_STORAGE_BOUNDS.max),
  });

  const save = async () => {
    // Shown to two decimals: a quota left as it was is kept to the byte, not rounded to the unit.
    const bytes = !touched ? quota : value === null ? null : Math.round(value * QUOTA_UNITS[unit]);
    if (bytes !== null && (bytes < USER_STORAGE_BOUNDS.min || bytes > USER_STORAGE_BOUNDS.max)) {
      setError(invalid);
      return;
    }
    try {
      await updateUser.mutateAsync({ id: user.id, body: { storage_quota_bytes: bytes } });
      message.success(messages.auth.storageQuotaSaved);
      onClose();
    } catch (err) {
      setError(errorMessage(err));
    }
  };

  return (
    <Modal
      open
      title="存储配额"
      okText="保存"
      cancelText="取消"
      onOk={save}
      onCancel={onClose}
      confirmLoading={updateUser.isPending}
      destroyOnHidden
    >
      <div className="quota-form">
        <Typography.Paragraph>
          用户 <Typography.Text strong>{user.username}</Typography.Text> 已使用{' '}
          {formatBytes(user.storage_used_bytes)}，当前上限 {formatBytes(user.storage_limit_bytes)}
          {user.storage_quota_bytes === null ? '（平台默认）' : ''}。
        </Typography.Paragraph>
        <Space.Compact block>
          <InputNumber<number>
            aria-label={`存储配额（${unit}）`}
            className="quota-form__input"
            value={value}
            onChange={(next) => {
              setValue(next);
              setTouched(true);
              setError(null);
            }}
            min={0}
            controls={false}
            placeholder="留空使用平台默认值"
            status={error ? 'error' : undefined}
          />
          <Segmented<QuotaUnit>
            aria-label="配额单位"
            options={['MB', 'GB']}
            value={unit}
            onChange={(next) => {
              setUnit(next);
              setTouched(true);
              setError(null);
            }}
          />
        </Space.Compact>
        {error ? (
          <Typography.Text type="danger" className="quota-form__hint" role="alert">
            {error}
          </Typography.Text>
        ) : (
          <Typography.Text type="secondary" className="quota-form__hint">
            留空则使用平台默认值（在“系统设置”中修改）。已存储的内容不受影响，超出配额后不能再上传。
          </Typography.Text>
        )}
      </div>
    </Modal>
  );
}

function RoleSelect({ user, isSelf }: { user: AdminUserDto; isSelf: boolean }) {
  const { message, modal } = App.useApp();
  const updateUser = useUpdateUser();
  const busy = updateUser.isPending;

  const change = (role: Role) => {
    if (role === user.role) return;
    modal.confirm({
      title: '修改角色',
      content: format(messages.auth.roleChangeConfirm, { name: user.username, role: ROLE_LABELS[role] }),
      okText: '确认修改',
      cancelText: '取消',
      onOk: async () => {
        try {
          await updateUser.mutateAsync({ id: user.id, body: { role } });
          message.success(messages.auth.roleChanged);
        } catch (error) {
          message.error(errorMessage(error));
        }
      },
    });
  };

  return (
    <Tooltip title={isSelf ? messages.auth.cannotChangeOwnRole : undefined}>
      <Select<Role>
        size="small"
        value={user.role}
        onChange={change}
        disabled={isSelf || busy}
        loading={busy}
        aria-label={`${user.username} 的角色`}
        popupMatchSelectWidth={false}
        className="users-table__role"
        options={ROLES.map((role) => ({ value: role, label: ROLE_LABELS[role] }))}
      />
    </Tooltip>
  );
}

function RowActions({ user, isSelf, onPasswordReset, onEditQuota, onShowTokens }: RowActionsProps) {
  const { message } = App.useApp();
  const updateUser = useUpdateUser();
  const resetPassword = useResetUserPassword();
  const deleteUser = useDeleteUser();
  const unlockUser = useUnlockUser();

  const unlock = async () => {
    try {
      await unlockUser.mutateAsync(user.id);
      message.success(messages.auth.userUnlocked);
    } catch (error) {
      message.error(errorMessage(error));
    }
  };

  const setDisabled = async (disabled: boolean) => {
    try {
      await updateUser.mutateAsync({ id: user.id, body: { disabled } });
      message.success(disabled ? messages.auth.userDisabled : messages.auth.userEnabled);
    } catch (error) {
      message.error(errorMessage(error));
    }
  };

  const reset = async () => {
    try {
      onPasswordReset(await resetPassword.mutateAsync(user.id));
    } catch (error) {
      message.error(errorMessage(error));
    }
  };

  const ownsProjects = user.project_count > 0;

  const remove = async () => {
    try {
      await deleteUser.mutateAsync(user.id);
      message.success(messages.auth.userDeleted);
    } catch (error) {
      message.error(errorMessage(error));
    }
  };

  return (
    <Space size={4} wrap>
      {user.locked_until && (
        <Popconfirm
          title="解除登录锁定"
          description={format(messages.auth.unlockUserConfirm, { name: user.username })}
          okText="确认解锁"
          cancelText="取消"
          onConfirm={unlock}
        >
          <Button
            type="link"
            size="small"
            icon={<UnlockOutlined aria-hidden />}
            loading={unlockUser.isPending}
          >
            解锁
          </Button>
        </Popconfirm>
      )}
      <Button
        type="link"
        size="small"
        icon={<DatabaseOutlined aria-hidden />}
        onClick={() => onEditQuota(user)}
      >
        配额
      </Button>
      <Button type="link" size="small" icon={<ApiOutlined aria-hidden />} onClick={() => onShowTokens(user)}>
        令牌
      </Button>
      {user.disabled ? (
        <Button
          type="link"
          size="small"
          icon={<CheckCircleOutlined aria-hidden />}
          loading={updateUser.isPending}
          onClick={() => setDisabled(false)}
        >
          启用
        </Button>
      ) : (
        <Tooltip title={isSelf ? messages.auth.cannotDisableSelf : undefined}>
          <Popconfirm
            title="停用账号"
            description={format(messages.auth.disableUserConfirm, { name: user.username })}
            okText="确认停用"
            cancelText="取消"
            okButtonProps={{ danger: true }}
            onConfirm={() => setDisabled(true)}
            disabled={isSelf}
          >
            <Button
              type="link"
              size="small"
              icon={<StopOutlined aria-hidden />}
              disabled={isSelf}
              loading={updateUser.isPending}
            >
              停用
            </Button>
          </Popconfirm>
        </Tooltip>
      )}
      <Tooltip title={isSelf ? messages.auth.cannotResetOwnPassword : undefined}>
        <Popconfirm
          title="重置密码"
          description={format(messages.auth.resetPasswordConfirm, { name: user.username })}
          okText="确认重置"
          cancelText="取消"
          onConfirm={reset}
          disabled={isSelf}
        >
          <Button
            type="link"
            size="small"
            icon={<KeyOutlined aria-hidden />}
            disabled={isSelf}
            loading={resetPassword.isPending}
          >
            重置密码
          </Button>
        </Popconfirm>
      </Tooltip>
      <Tooltip title={isSelf ? messages.auth.cannotDeleteSelf : undefined}>
        <Popconfirm
          {...(ownsProjects
            ? {
                // The server would refuse (docs/product.md): say so before, and offer what it suggests.
                title: '无法删除用户',
                description: format(messages.auth.userOwnsProjects, {
                  name: user.username,
                  count: user.project_count,
                }),
                okText: user.disabled ? '知道了' : '改为停用',
                showCancel: !user.disabled,
                onConfirm: user.disabled ? undefined : () => setDisabled(true),
              }
            : {
                title: '删除用户',
                description: format(messages.auth.deleteUserConfirm, { name: user.username }),
                okText: '确认删除',
                okButtonProps: { danger: true },
                onConfirm: remove,
              })}
          cancelText="取消"
          disabled={isSelf}
        >
          <Button
            type="link"
            size="small"
            danger
            icon={<DeleteOutlined aria-hidden />}
            disabled={isSelf}
            loading={deleteUser.isPending}
          >
            删除
          </Button>
        </Popconfirm>
      </Tooltip>
    </Space>
  );
}

function PasswordResetModal({ result, onClose }: { result: PasswordResetData | null; onClose: () => void }) {
  return (
    <Modal
      open={result !== null}
      title="密码已重置"
      onCancel={onClose}
      mask={{ closable: false }}
      destroyOnHidden
      footer={
        <Button type="primary" onClick={onClose}>
          我已保存
        </Button>
      }
    >
      {result && (
        <div className="password-reset">
          <Typography.Paragraph>
            用户 <Typography.Text strong>{result.user.username}</Typography.Text>{' '}
            的新密码如下，原密码及其所有登录会话已失效：
          </Typography.Paragraph>
          <GeneratedPassword password={result.password} />
          <Alert
            type="warning"
            showIcon
            title={messages.auth.passwordOnceWarning}
            description={messages.auth.passwordInitialHint}
          />
        </div>
      )}
    </Modal>
  );
}

export function AdminUsersPage() {
  const { user: me } = useAuth();
  const list = useUserListParams();
  const users = useAdminUsers(list.query);
  const [resetResult, setResetResult] = useState<PasswordResetData | null>(null);
  const [quotaUser, setQuotaUser] = useState<AdminUserDto | null>(null);
  const [tokensUser, setTokensUser] = useState<AdminUserDto | null>(null);
  const wide = useWideLayout();

  const columns: TableProps<AdminUserDto>['columns'] = [
    {
      title: '用户',
      key: 'user',
      // On a phone the card's head: its name and avatar need no label.
      className: 'users-table__who',
      render: (_, user) => (
        <div className="users-table__identity">
          <UserAvatar user={user} size={36} />
          <div className="users-table__names">
            <span className="users-table__name-line">
              <span className="users-table__username" title={user.username}>
                {user.username}
              </span>
              {user.id === me?.id && (
                <Tag color="processing" className="users-table__self">
                  我
                </Tag>
              )}
            </span>
            <Typography.Text type="secondary" className="users-table__email" title={user.email ?? undefined}>
              {user.email ?? `邮箱${messages.auth.emailNotSet}`}
            </Typography.Text>
          </div>
        </div>
      ),
    },
    {
      title: '角色',
      key: 'role',
      width: 120,
      render: (_, user) => <RoleSelect user={user} isSelf={user.id === me?.id} />,
    },
    {
      title: '状态',
      key: 'status',
      width: 90,
      render: (_, user) => (
        <div className="users-table__status">
          {user.disabled ? (
            <Tag icon={<StopOutlined aria-hidden />} color="error">
              已停用
            </Tag>
          ) : (
            <Tag icon={<CheckCircleOutlined aria-hidden />} color="success">
              正常
            </Tag>
          )}
          {user.locked_until && (
            <Tooltip title={`连续密码错误，暂停登录至 ${formatDateTime(user.locked_until)}`}>
              <Tag icon={<LockOutlined aria-hidden />} color="warning" className="users-table__locked">
                已锁定
              </Tag>
            </Tooltip>
          )}
        </div>
      ),
    },
    { title: '项目数', dataIndex: 'project_count', key: 'projects', width: 80, align: 'right' },
    {
      title: '存储空间',
      key: 'storage',
      width: 140,
      render: (_, user) => (
        <StorageUsage
          size="small"
          usage={{ used_bytes: user.storage_used_bytes, quota_bytes: user.storage_limit_bytes }}
        />
      ),
    },
    {
      title: '最近登录',
      dataIndex: 'last_login_at',
      key: 'last_login',
      // The date over the time, two lines: the width of 创建时间's date.
      width: 110,
      render: (value: string | null) => formatDateTime(value, '从未登录'),
    },
    {
      title: '创建时间',
      dataIndex: 'created_at',
      key: 'created',
      width: 110,
      render: (value: string) => formatDate(value),
    },
    {
      title: '操作',
      key: 'actions',
      // Narrow enough, with the other columns, that the whole table fits at 1366 px (its buttons wrap
      // onto three lines): wider, the table scrolled and this pinned column covered 最近登录.
      width: 200,
      // In view when the table scrolls sideways on narrower screens; on a phone, pinned, it would
      // cover the names.
      fixed: wide ? 'right' : undefined,
      // On a phone the buttons run across the card under a line, without the 操作 label.
      className: 'users-table__actions',
      render: (_, user) => (
        <RowActions
          user={user}
          isSelf={user.id === me?.id}
          onPasswordReset={setResetResult}
          onEditQuota={setQuotaUser}
          onShowTokens={setTokensUser}
        />
      ),
    },
  ];

  // After deleting the last user of the last page, step back to a page that exists.
  useStayOnExistingPage(list, users.data?.pagination.total_pages);

  const filtered = Boolean(list.search) || list.role !== 'all';
  const total = users.data?.pagination.total_count;

  return (
    <>
      <PageHeader
        title="用户管理"
        description="管理平台账号：修改角色、存储配额，查看或撤销 API 令牌，停用或启用账号、重置密码。平台不开放自助注册，新账号由管理员创建。"
        extra={
          <LinkButton to="/register" type="primary" icon={<UserAddOutlined aria-hidden />}>
            注册新用户
          </LinkButton>
        }
      />
      <Card>
        <div className="admin-toolbar">
          <SearchBox
            value={list.search}
            label="搜索用户"
            placeholder="搜索用户名或邮箱"
            onSearch={(search) => list.update({ search, page: 1 })}
          />
          <Segmented<RoleFilter>
            aria-label="按角色筛选"
            value={list.role}
            onChange={(role) => list.update({ role, page: 1 })}
            options={[
              { value: 'all', label: '全部' },
              ...ROLES.map((role) => ({ value: role, label: ROLE_LABELS[role] })),
            ]}
          />
          <div className="admin-toolbar__end">
            {total !== undefined && (
              <Typography.Text type="secondary">
                {filtered ? `找到 ${total} 个用户` : `共 ${total} 个用户`}
              </Typography.Text>
            )}
          </div>
        </div>

        <PagedTable<AdminUserDto>
          query={users}
          rows={users.data?.users ?? []}
          columns={columns}
          // The columns' widths and 用户's least: within the card at 1366 px, the page's scrollbar
          // included, so the table scrolls sideways only on narrower screens; a phone shows each
          // user as a card.
          scroll={{ x: 980 }}
          stackOnPhone
          className="users-table"
          failedTitle={messages.auth.usersLoadFailed}
          paging={{
            page: list.page,
            pageSize: list.pageSize,
            pageSizes: PAGE_SIZES,
            total: total ?? 0,
            summary: (count) => `共 ${count} 条`,
            onChange: (page, pageSize) => list.update({ page, pageSize }),
          }}
          emptyText={filtered ? '没有找到匹配的用户' : '暂无用户'}
        />
      </Card>
      <PasswordResetModal result={resetResult} onClose={() => setResetResult(null)} />
      {quotaUser && <QuotaModal key={quotaUser.id} user={quotaUser} onClose={() => setQuotaUser(null)} />}
      {tokensUser && (
        <UserTokensModal key={tokensUser.id} user={tokensUser} onClose={() => setTokensUser(null)} />
      )}
    </>
  );
}
