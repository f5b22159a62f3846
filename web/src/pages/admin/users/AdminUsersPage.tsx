import {
  CheckCircleOutlined,
  DeleteOutlined,
  KeyOutlined,
  ReloadOutlined,
  StopOutlined,
  UserAddOutlined,
} from '@ant-design/icons';
import {
  type AdminUserDto,
  format,
  messages,
  type PasswordResetData,
  ROLE_LABELS,
  ROLES,
  type Role,
  type UserListQuery,
} from '@sitehall/contracts';
import {
  Alert,
  App,
  Button,
  Card,
  Empty,
  Input,
  Modal,
  Popconfirm,
  Result,
  Segmented,
  Select,
  Space,
  Table,
  type TableProps,
  Tag,
  Tooltip,
  Typography,
} from 'antd';
import { useEffect, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { errorMessage } from '../../../api/client';
import { useAdminUsers, useDeleteUser, useResetUserPassword, useUpdateUser } from '../../../api/users';
import { GeneratedPassword } from '../../../components/GeneratedPassword';
import { LinkButton } from '../../../components/LinkButton';
import { PageHeader } from '../../../components/PageHeader';
import { UserAvatar } from '../../../components/UserAvatar';
import { useAuth } from '../../../hooks/useAuth';
import { formatDate, formatDateTime } from '../../../lib/format';

const PAGE_SIZES = [10, 20, 50, 100];
const DEFAULT_PAGE_SIZE = 20;
type RoleFilter = Role | 'all';

/** The list query lives in the address, so reload and back keep the same page and filters. */
function useUserListParams() {
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number.parseInt(params.get('page') ?? '', 10) || 1);
  const pageSizeParam = Number.parseInt(params.get('page_size') ?? '', 10);
  const pageSize = PAGE_SIZES.includes(pageSizeParam) ? pageSizeParam : DEFAULT_PAGE_SIZE;
  const search = params.get('search')?.trim() ?? '';
  const roleParam = params.get('role');
  const role: RoleFilter = ROLES.includes(roleParam as Role) ? (roleParam as Role) : 'all';

  const query: UserListQuery = {
    page,
    page_size: pageSize,
    ...(search ? { search } : {}),
    ...(role !== 'all' ? { role } : {}),
  };

  const update = (next: { page?: number; pageSize?: number; search?: string; role?: RoleFilter }) => {
    const merged = { page, pageSize, search, role, ...next };
    const out = new URLSearchParams();
    if (merged.page > 1) out.set('page', String(merged.page));
    if (merged.pageSize !== DEFAULT_PAGE_SIZE) out.set('page_size', String(merged.pageSize));
    if (merged.search) out.set('search', merged.search);
    if (merged.role !== 'all') out.set('role', merged.role);
    setParams(out, { replace: true });
  };

  return { query, page, pageSize, search, role, update };
}

interface RowActionsProps {
  user: AdminUserDto;
  isSelf: boolean;
  onPasswordReset: (result: PasswordResetData) => void;
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

function RowActions({ user, isSelf, onPasswordReset }: RowActionsProps) {
  const { message } = App.useApp();
  const updateUser = useUpdateUser();
  const resetPassword = useResetUserPassword();
  const deleteUser = useDeleteUser();

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
      <Tooltip title={isSelf ? '请在“个人设置”中修改自己的密码' : undefined}>
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
          title="删除用户"
          description={format(messages.auth.deleteUserConfirm, { name: user.username })}
          okText="确认删除"
          cancelText="取消"
          okButtonProps={{ danger: true }}
          onConfirm={remove}
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
          <Alert type="warning" showIcon title={messages.auth.passwordOnceWarning} />
        </div>
      )}
    </Modal>
  );
}

export function AdminUsersPage() {
  const { user: me } = useAuth();
  const list = useUserListParams();
  const users = useAdminUsers(list.query);
  const [searchText, setSearchText] = useState(list.search);
  const [resetResult, setResetResult] = useState<PasswordResetData | null>(null);

  const columns: TableProps<AdminUserDto>['columns'] = [
    {
      title: '用户',
      key: 'user',
      render: (_, user) => (
        <div className="users-table__identity">
          <UserAvatar user={user} size={36} />
          <div className="users-table__names">
            <span className="users-table__username">
              {user.username}
              {user.id === me?.id && (
                <Tag color="processing" className="users-table__self">
                  我
                </Tag>
              )}
            </span>
            <Typography.Text type="secondary" className="users-table__email">
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
      width: 100,
      render: (_, user) =>
        user.disabled ? (
          <Tag icon={<StopOutlined aria-hidden />} color="error">
            已停用
          </Tag>
        ) : (
          <Tag icon={<CheckCircleOutlined aria-hidden />} color="success">
            正常
          </Tag>
        ),
    },
    { title: '项目数', dataIndex: 'project_count', key: 'projects', width: 90, align: 'right' },
    {
      title: '最近登录',
      dataIndex: 'last_login_at',
      key: 'last_login',
      width: 150,
      render: (value: string | null) => formatDateTime(value, '从未登录'),
    },
    {
      title: '创建时间',
      dataIndex: 'created_at',
      key: 'created',
      width: 120,
      render: (value: string) => formatDate(value),
    },
    {
      title: '操作',
      key: 'actions',
      width: 250,
      // Always in view when the table scrolls sideways on narrower screens.
      fixed: 'right',
      render: (_, user) => (
        <RowActions user={user} isSelf={user.id === me?.id} onPasswordReset={setResetResult} />
      ),
    },
  ];

  // After deleting the last user of the last page, step back to a page that exists.
  const lastPage = users.data?.pagination.total_pages;
  useEffect(() => {
    if (lastPage !== undefined && list.page > lastPage) list.update({ page: lastPage });
  }, [lastPage, list]);

  const filtered = Boolean(list.search) || list.role !== 'all';
  const total = users.data?.pagination.total_count;

  return (
    <>
      <PageHeader
        title="用户管理"
        description="管理平台账号：修改角色、停用或启用账号、重置密码。平台不开放自助注册，新账号由管理员创建。"
        extra={
          <LinkButton to="/register" type="primary" icon={<UserAddOutlined aria-hidden />}>
            注册新用户
          </LinkButton>
        }
      />
      <Card className="users-card">
        <div className="users-toolbar">
          <Input.Search
            className="users-toolbar__search"
            placeholder="搜索用户名或邮箱"
            aria-label="搜索用户"
            allowClear
            value={searchText}
            maxLength={100}
            onChange={(event) => setSearchText(event.target.value)}
            onSearch={(value) => list.update({ search: value.trim(), page: 1 })}
            enterButton="搜索"
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
          <div className="users-toolbar__count">
            {total !== undefined && (
              <Typography.Text type="secondary">
                {filtered ? `找到 ${total} 个用户` : `共 ${total} 个用户`}
              </Typography.Text>
            )}
          </div>
        </div>

        {users.isError && users.data && (
          <Alert
            type="warning"
            showIcon
            className="users-card__alert"
            title={`${messages.auth.usersLoadFailed}：${errorMessage(users.error)}`}
            action={
              <Button size="small" onClick={() => users.refetch()}>
                重试
              </Button>
            }
          />
        )}

        {users.isError && !users.data ? (
          <Result
            status="error"
            title={messages.auth.usersLoadFailed}
            subTitle={errorMessage(users.error)}
            extra={
              <Button type="primary" icon={<ReloadOutlined aria-hidden />} onClick={() => users.refetch()}>
                重新加载
              </Button>
            }
          />
        ) : (
          <Table<AdminUserDto>
            rowKey="id"
            columns={columns}
            dataSource={users.data?.users ?? []}
            loading={users.isPending || (users.isFetching && users.isPlaceholderData)}
            scroll={{ x: 1000 }}
            pagination={{
              current: list.page,
              pageSize: list.pageSize,
              total: total ?? 0,
              showSizeChanger: true,
              pageSizeOptions: PAGE_SIZES,
              showTotal: (count) => `共 ${count} 条`,
              hideOnSinglePage: false,
            }}
            onChange={(pagination) =>
              list.update({
                page: pagination.current ?? 1,
                pageSize: pagination.pageSize ?? DEFAULT_PAGE_SIZE,
              })
            }
            locale={{
              emptyText: (
                <Empty
                  image={Empty.PRESENTED_IMAGE_SIMPLE}
                  description={filtered ? '没有找到匹配的用户' : '暂无用户'}
                />
              ),
            }}
          />
        )}
      </Card>
      <PasswordResetModal result={resetResult} onClose={() => setResetResult(null)} />
    </>
  );
}
