/**
 * A project's custom domains (docs/product.md "Custom domains"): the owner adds one, is shown the
 * DNS record that proves control, and presses 检查; an active domain links to the site over HTTPS.
 * What the viewer may do (add, remove) comes from the server with the list.
 */
import { GlobalOutlined } from '@ant-design/icons';
import {
  addDomainBody,
  CUSTOM_DOMAIN_STATE_LABELS,
  type CustomDomainDto,
  type CustomDomainState,
  messages,
} from '@sitehall/contracts';
import {
  Alert,
  App,
  Button,
  Card,
  Empty,
  Form,
  Input,
  Popconfirm,
  Skeleton,
  Space,
  Tag,
  Typography,
} from 'antd';
import { useState } from 'react';
import { errorMessage, toApiError } from '../api/client';
import { useAddDomain, useCheckDomain, useProjectDomains, useRemoveProjectDomain } from '../api/domains';
import { useSingleFlight } from '../hooks/useSingleFlight';
import { applyFieldErrors, schemaRule } from '../lib/form';

const m = messages.domain;
const STATE_COLORS: Record<CustomDomainState, string> = {
  pending: 'default',
  awaiting_approval: 'orange',
  active: 'green',
  not_served: 'red',
};

interface Props {
  projectId: number;
  className?: string;
}

export function CustomDomainsCard({ projectId, className }: Props) {
  const { message } = App.useApp();
  const [form] = Form.useForm<{ domain: string }>();
  const query = useProjectDomains(projectId);
  const add = useAddDomain(projectId);
  const check = useCheckDomain(projectId);
  const remove = useRemoveProjectDomain(projectId);
  /** The last check's failure, shown under its domain until the next check. */
  const [failure, setFailure] = useState<{ id: number; text: string } | null>(null);

  const once = useSingleFlight();

  const onAdd = ({ domain }: { domain: string }) =>
    once('add', async () => {
      try {
        await add.mutateAsync(domain);
        form.resetFields();
        message.success(m.added);
      } catch (err) {
        const apiError = toApiError(err);
        if (!applyFieldErrors(form, apiError, ['domain'])) message.error(apiError.message);
      }
    });

  const onCheck = async (id: number) => {
    setFailure(null);
    try {
      const { domain } = await check.mutateAsync(id);
      message.success(domain.state === 'awaiting_approval' ? m.verifiedAwaitingApproval : m.verified);
    } catch (err) {
      setFailure({ id, text: errorMessage(err) });
    }
  };

  const onRemove = async (id: number) => {
    try {
      await remove.mutateAsync(id);
      message.success(m.removed);
    } catch (err) {
      message.error(errorMessage(err));
    }
  };

  const data = query.data;
  // A platform that serves no custom domains (docs/product.md "Custom domains") has nothing to
  // offer here: the card shows only for a domain added before, to say why it is not served.
  if (data && !data.available && data.domains.length === 0) return null;
  return (
    <Card title="自定义域名" className={className}>
      {query.isPending ? (
        <Skeleton active paragraph={{ rows: 2 }} />
      ) : query.isError || !data ? (
        <Alert type="error" showIcon title={errorMessage(query.error)} />
      ) : (
        <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
          {!data.available && <Alert type="info" showIcon title={data.unavailable_reason ?? m.unavailable} />}
          {/* Never approved, or taken down: no domain can be added, none is served (docs/product.md). */}
          {data.available && !data.live && (
            <Alert
              type="info"
              showIcon
              title={m.notLive}
              description={data.domains.length > 0 ? '已添加的域名在项目重新上线后恢复访问。' : undefined}
            />
          )}
          {data.available && data.live && (
            <Typography.Paragraph type="secondary" style={{ marginBottom: 0 }}>
              用自己的域名访问这个站点，HTTPS 证书自动签发。添加域名后按提示在域名的 DNS
              中添加验证记录，并把域名解析到 <Typography.Text code>{data.sites_host}</Typography.Text>。
              {data.require_approval && '验证通过后还需管理员批准才会生效。'}
            </Typography.Paragraph>
          )}
          {data.can_add && (
            <Form form={form} layout="inline" onFinish={onAdd} requiredMark={false}>
              <Form.Item name="domain" label="域名" rules={[schemaRule(addDomainBody.shape.domain)]}>
                <Input
                  prefix={<GlobalOutlined aria-hidden className="input-icon" />}
                  placeholder="www.example.com"
                  maxLength={253}
                />
              </Form.Item>
              <Button type="primary" htmlType="submit" loading={add.isPending}>
                添加域名
              </Button>
            </Form>
          )}
          {data.domains.length === 0 ? (
            data.live && <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description="还没有自定义域名" />
          ) : (
            <ul className="split-list" aria-label="自定义域名列表">
              {data.domains.map((d) => (
                <li key={d.id} className="split-list__item split-list__item--actions">
                  <DomainEntry
                    domain={d}
                    failure={failure?.id === d.id ? failure.text : null}
                    // The card's notice above already says why when the platform serves none or
                    // the project is not live; a reason of its own (a platform host) shows here.
                    reason={data.available && data.live ? d.not_served_reason : null}
                  />
                  {((d.state === 'pending' && data.can_check) || data.can_remove) && (
                    <Space size={8} className="split-list__actions">
                      {d.state === 'pending' && data.can_check && (
                        <Button
                          size="small"
                          aria-label={`检查 ${d.domain}`}
                          loading={check.isPending && check.variables === d.id}
                          onClick={() => onCheck(d.id)}
                        >
                          检查
                        </Button>
                      )}
                      {data.can_remove && (
                        <Popconfirm
                          title={`删除域名 ${d.domain}？`}
                          description="删除后该域名立即停止访问此站点。"
                          okText="删除"
                          cancelText="取消"
                          okButtonProps={{ danger: true }}
                          onConfirm={() => onRemove(d.id)}
                        >
                          <Button size="small" danger aria-label={`删除 ${d.domain}`}>
                            删除
                          </Button>
                        </Popconfirm>
                      )}
                    </Space>
                  )}
                </li>
              ))}
            </ul>
          )}
        </Space>
      )}
    </Card>
  );
}

/** One domain: its name and state, and while pending the records that prove control. */
function DomainEntry({
  domain: d,
  failure,
  reason,
}: {
  domain: CustomDomainDto;
  failure: string | null;
  reason: string | null;
}) {
  return (
    <Space orientation="vertical" size={4} style={{ width: '100%' }} data-testid={`domain-${d.domain}`}>
      <Space wrap>
        {d.state === 'active' ? (
          <Typography.Link href={`https://${d.domain}/`} target="_blank" rel="noreferrer" strong>
            {d.domain}
          </Typography.Link>
        ) : (
          <Typography.Text strong>{d.domain}</Typography.Text>
        )}
        <Tag color={STATE_COLORS[d.state]}>{CUSTOM_DOMAIN_STATE_LABELS[d.state]}</Tag>
      </Space>
      {d.state === 'pending' && (
        <Typography.Text type="secondary">
          添加 TXT 记录{' '}
          <Typography.Text code copyable>
            {d.txt_name}
          </Typography.Text>
          ，值为{' '}
          <Typography.Text code copyable>
            {d.txt_value}
          </Typography.Text>
          {d.cname_target && (
            <>
              ；或把 {d.domain} 的 CNAME 指向{' '}
              <Typography.Text code copyable>
                {d.cname_target}
              </Typography.Text>
            </>
          )}
          。
        </Typography.Text>
      )}
      {reason && <Typography.Text type="secondary">{reason}</Typography.Text>}
      {failure && <Alert type="warning" showIcon title={failure} />}
    </Space>
  );
}
