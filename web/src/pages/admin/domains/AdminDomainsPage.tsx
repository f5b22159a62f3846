/**
 * Every custom domain of the platform (docs/product.md "Custom domains"): its project and owner,
 * its state; an admin approves verified ones (when the platform requires approval) and removes any.
 */
import {
  type AdminDomainDto,
  CUSTOM_DOMAIN_STATE_LABELS,
  type CustomDomainState,
  messages,
} from '@sitehall/contracts';
import { Alert, App, Button, Card, Popconfirm, Space, Table, type TableProps, Tag, Typography } from 'antd';
import { Link } from 'react-router-dom';
import { errorMessage } from '../../../api/client';
import { useAdminDomains, useApproveDomain, useRemoveDomain } from '../../../api/domains';
import { labelCells } from '../../../components/admin/PagedTable';
import { PageHeader } from '../../../components/PageHeader';
import { formatDateTime } from '../../../lib/format';

const m = messages.domain;
const STATE_COLORS: Record<CustomDomainState, string> = {
  pending: 'default',
  awaiting_approval: 'orange',
  active: 'green',
  not_served: 'red',
};

export function AdminDomainsPage() {
  const { message } = App.useApp();
  const query = useAdminDomains();
  const approve = useApproveDomain();
  const remove = useRemoveDomain();

  const run = async (action: Promise<unknown>, done: string) => {
    try {
      await action;
      message.success(done);
    } catch (err) {
      message.error(errorMessage(err));
    }
  };

  const columns: NonNullable<TableProps<AdminDomainDto>['columns']> = [
    {
      title: '域名',
      dataIndex: 'domain',
      render: (domain: string) => <Typography.Text strong>{domain}</Typography.Text>,
    },
    {
      title: '状态',
      dataIndex: 'state',
      // Not served (the platform serves no custom domains, a platform host, a project not live):
      // said with the reason, never 已生效 (docs/product.md "Custom domains").
      render: (state: CustomDomainState, d) => (
        <Space orientation="vertical" size={2}>
          <Tag color={STATE_COLORS[state]}>{CUSTOM_DOMAIN_STATE_LABELS[state]}</Tag>
          {d.not_served_reason && (
            <Typography.Text type="secondary" className="admin-domains__reason">
              {d.not_served_reason}
            </Typography.Text>
          )}
        </Space>
      ),
    },
    {
      title: '项目',
      dataIndex: 'project_name',
      render: (name: string, d) => <Link to={`/admin/reviews/${d.project_id}`}>{name}</Link>,
    },
    { title: '所有者', dataIndex: 'owner_username' },
    { title: '添加时间', dataIndex: 'created_at', render: (v: string) => formatDateTime(v) },
    {
      title: '操作',
      key: 'actions',
      render: (_: unknown, d) => (
        <Space>
          {d.state === 'awaiting_approval' && (
            <Button size="small" type="primary" onClick={() => run(approve.mutateAsync(d.id), m.approved)}>
              批准
            </Button>
          )}
          <Popconfirm
            title={`删除域名 ${d.domain}？`}
            description="删除后该域名立即停止访问此站点，也不再续期证书。"
            okText="删除"
            cancelText="取消"
            okButtonProps={{ danger: true }}
            onConfirm={() => run(remove.mutateAsync(d.id), m.removed)}
          >
            <Button size="small" danger>
              删除
            </Button>
          </Popconfirm>
        </Space>
      ),
    },
  ];

  // On a phone each domain is a card, every cell under its column's name (admin.css), as the
  // other admin lists: the six columns' headers stood one character a line.
  const phoneColumns = labelCells(columns);

  return (
    <>
      <PageHeader title="自定义域名" description="所有项目绑定的自定义域名" />
      <Card>
        {query.isError ? (
          <Alert type="error" showIcon title={errorMessage(query.error)} />
        ) : (
          <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
            {/* The default install serves none: the page said only 还没有自定义域名. */}
            {query.data?.unavailable_reason && (
              <Alert type="info" showIcon title={query.data.unavailable_reason} />
            )}
            {query.data?.require_approval && (
              <Alert
                type="info"
                showIcon
                title="已开启“自定义域名需管理员批准”：验证通过的域名批准后才会生效。"
              />
            )}
            <Table<AdminDomainDto>
              rowKey="id"
              loading={query.isPending}
              columns={phoneColumns}
              className="paged-table--stack"
              dataSource={query.data?.domains ?? []}
              pagination={false}
              locale={{ emptyText: '还没有自定义域名' }}
              scroll={{ x: true }}
            />
          </Space>
        )}
      </Card>
    </>
  );
}
