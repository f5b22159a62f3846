/**
 * One account's API tokens for an administrator (docs/decisions/deploys.md "API tokens"): name, prefix,
 * created and last used, and a revoke with a confirmation (a leaked token, a CI job gone).
 */
import { type AdminUserDto, type ApiTokenDto, format, messages } from '@sitehall/contracts';
import { Alert, App, Button, Empty, Modal, Popconfirm, Skeleton, Table, Typography } from 'antd';
import { errorMessage } from '../../../api/client';
import { useRevokeUserApiToken, useUserApiTokens } from '../../../api/users';
import { formatDateTime } from '../../../lib/format';

const m = messages.deploy;

export function UserTokensModal({ user, onClose }: { user: AdminUserDto; onClose: () => void }) {
  const { message } = App.useApp();
  const tokens = useUserApiTokens(user.id);
  const revoke = useRevokeUserApiToken(user.id);

  const onRevoke = async (id: number) => {
    try {
      await revoke.mutateAsync(id);
      message.success(m.tokenRevoked);
    } catch (error) {
      message.error(errorMessage(error));
    }
  };

  return (
    <Modal
      open
      title={format(m.userTokensTitle, { name: user.username })}
      onCancel={onClose}
      width={760}
      destroyOnHidden
      footer={<Button onClick={onClose}>关闭</Button>}
    >
      <Typography.Paragraph type="secondary">
        令牌用于命令行和持续集成部署。修改或重置密码、停用账号时，该用户的令牌会全部撤销。
      </Typography.Paragraph>
      {tokens.isPending ? (
        <Skeleton active paragraph={{ rows: 2 }} />
      ) : tokens.isError ? (
        <Alert
          type="error"
          showIcon
          title={m.userTokensLoadFailed}
          description={errorMessage(tokens.error)}
        />
      ) : tokens.data.tokens.length === 0 ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={m.userTokensEmpty} />
      ) : (
        <Table<ApiTokenDto>
          aria-label={format(m.userTokensTitle, { name: user.username })}
          rowKey="id"
          size="small"
          pagination={false}
          dataSource={tokens.data.tokens}
          columns={[
            { key: 'name', title: '名称', dataIndex: 'name' },
            {
              key: 'prefix',
              title: '令牌开头',
              render: (_, t) => (t.prefix ? <Typography.Text code>{`${t.prefix}…`}</Typography.Text> : '—'),
            },
            { key: 'created', title: '创建时间', render: (_, t) => formatDateTime(t.created_at) },
            { key: 'used', title: '最近使用', render: (_, t) => formatDateTime(t.last_used_at, '从未使用') },
            {
              key: 'revoke',
              title: '操作',
              render: (_, t) => (
                <Popconfirm
                  title="撤销令牌"
                  description={format(m.userTokenRevokeConfirm, { name: t.name })}
                  okText="确认撤销"
                  okButtonProps={{ danger: true }}
                  cancelText="取消"
                  onConfirm={() => onRevoke(t.id)}
                >
                  <Button danger size="small" aria-label={`撤销令牌 ${t.name}`}>
                    撤销
                  </Button>
                </Popconfirm>
              ),
            },
          ]}
        />
      )}
    </Modal>
  );
}
