/**
 * API tokens for the `sitehall` command line and CI (docs/decisions/deploys.md "API tokens"): create one
 * (shown once, with a copy button), list them with their last use, revoke with a confirmation.
 */
import { KeyOutlined } from '@ant-design/icons';
import { type ApiTokenDto, createTokenBody, messages } from '@sitehall/contracts';
import { Alert, App, Button, Card, Empty, Form, Input, Popconfirm, Skeleton, Table, Typography } from 'antd';
import { useState } from 'react';
import { toApiError } from '../../api/client';
import { useApiTokens, useCreateApiToken, useRevokeApiToken } from '../../api/tokens';
import { useSingleFlight } from '../../hooks/useSingleFlight';
import { type CliCommands, cliCommands } from '../../lib/cli-commands';
import { applyFieldErrors, schemaRule } from '../../lib/form';
import { formatDateTime } from '../../lib/format';

interface NewTokenValues {
  name: string;
}

const COMMAND_STEPS: { key: keyof CliCommands; label: string }[] = [
  { key: 'install', label: '安装命令行工具（需要 Node.js 20.19 或更新版本）' },
  { key: 'login', label: '登录本服务器' },
  { key: 'deploy', label: '部署一个文件夹' },
];

/** The exact commands for this server, each ready to copy (with the new token once there is one). */
function CliCommandList({ token }: { token?: string }) {
  const commands = cliCommands(window.location.origin, token);
  return (
    <ol className="cli-commands" aria-label="命令行用法">
      {COMMAND_STEPS.map(({ key, label }) => (
        <li key={key}>
          <Typography.Text type="secondary">{label}</Typography.Text>
          <Typography.Text
            code
            copyable={{ text: commands[key], tooltips: ['复制', '已复制'] }}
            data-testid={`cli-${key}`}
          >
            {commands[key]}
          </Typography.Text>
        </li>
      ))}
    </ol>
  );
}

export function ApiTokensCard() {
  const { message } = App.useApp();
  const [form] = Form.useForm<NewTokenValues>();
  const tokens = useApiTokens();
  const create = useCreateApiToken();
  const revoke = useRevokeApiToken();
  const [created, setCreated] = useState<{ name: string; token: string } | null>(null);
  const [error, setError] = useState<string | null>(null);

  const once = useSingleFlight();

  const onCreate = (values: NewTokenValues) =>
    once('create', async () => {
      setError(null);
      try {
        const token = await create.mutateAsync({ name: values.name });
        setCreated({ name: token.name, token: token.token });
        form.resetFields();
      } catch (err) {
        const apiError = toApiError(err);
        if (!applyFieldErrors(form, apiError, ['name'])) setError(apiError.message);
      }
    });

  const onRevoke = async (id: number) => {
    try {
      await revoke.mutateAsync(id);
      message.success(messages.deploy.tokenRevoked);
    } catch (err) {
      message.error(toApiError(err).message);
    }
  };

  return (
    <Card title="API 令牌" className="profile-section">
      <Typography.Paragraph type="secondary">
        用于命令行工具 <Typography.Text code>sitehall</Typography.Text>{' '}
        和持续集成部署。令牌只能管理你自己的项目和部署，不能用于管理后台或修改账号。
      </Typography.Paragraph>
      {!created && <CliCommandList />}
      {created && (
        <Alert
          type="success"
          showIcon
          closable={{ onClose: () => setCreated(null) }}
          className="profile-section__note"
          title={`令牌「${created.name}」已创建，请立即复制保存，它只显示这一次`}
          description={
            <>
              <Typography.Text
                code
                copyable={{ text: created.token, tooltips: ['复制', '已复制'] }}
                data-testid="new-api-token"
              >
                {created.token}
              </Typography.Text>
              <CliCommandList token={created.token} />
            </>
          }
        />
      )}
      {error && <Alert type="error" showIcon title={error} className="profile-section__note" />}
      <Form form={form} layout="inline" onFinish={onCreate} requiredMark={false}>
        <Form.Item name="name" label="令牌名称" rules={[schemaRule(createTokenBody.shape.name)]}>
          <Input
            prefix={<KeyOutlined aria-hidden className="input-icon" />}
            placeholder="例如：GitHub Actions"
            maxLength={50}
          />
        </Form.Item>
        <Button type="primary" htmlType="submit" loading={create.isPending}>
          创建令牌
        </Button>
      </Form>
      {tokens.isPending ? (
        <Skeleton active paragraph={{ rows: 2 }} />
      ) : tokens.isError ? (
        <Alert type="error" showIcon title={toApiError(tokens.error).message} />
      ) : tokens.data.tokens.length === 0 ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description="还没有 API 令牌" />
      ) : (
        <Table
          aria-label="API 令牌列表"
          rowKey="id"
          size="small"
          pagination={false}
          dataSource={tokens.data.tokens}
          columns={[
            { key: 'name', title: '名称', dataIndex: 'name' },
            {
              key: 'created',
              title: '创建时间',
              render: (_: unknown, t: ApiTokenDto) => formatDateTime(t.created_at),
            },
            {
              key: 'used',
              title: '最近使用',
              render: (_: unknown, t: ApiTokenDto) => formatDateTime(t.last_used_at, '从未使用'),
            },
            {
              key: 'revoke',
              title: '操作',
              render: (_: unknown, t: ApiTokenDto) => (
                <Popconfirm
                  title={`撤销令牌「${t.name}」？`}
                  description="使用它的命令行和持续集成将无法再部署。"
                  okText="确认撤销"
                  okButtonProps={{ danger: true }}
                  cancelText="取消"
                  onConfirm={() => onRevoke(t.id)}
                >
                  <Button danger size="small">
                    撤销
                  </Button>
                </Popconfirm>
              ),
            },
          ]}
        />
      )}
    </Card>
  );
}
