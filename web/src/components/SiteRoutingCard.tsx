/**
 * How a site is routed (docs/product.md "A site's own routing"): the owner's SPA fallback and clean
 * URLs switches, and the newest version's _redirects and _headers as uploaded. The owner switches
 * them here; the reviewer reads them (editable={false}).
 */
import type { ProjectDto, SiteRulesDto } from '@sitehall/contracts';
import { App, Card, Empty, Space, Switch, Tabs, Typography } from 'antd';
import { errorMessage } from '../api/client';
import { useUpdateProject } from '../api/projects';

interface Props {
  project: ProjectDto;
  editable: boolean;
  className?: string;
}

export function SiteRoutingCard({ project, editable, className }: Props) {
  const { message } = App.useApp();
  const update = useUpdateProject(project.id);
  const { spa_fallback, clean_urls, rules } = project.routing;

  const toggle = async (body: { spa_fallback?: boolean; clean_urls?: boolean }) => {
    try {
      await update.mutateAsync(body);
      message.success('路由设置已保存');
    } catch (error) {
      message.error(errorMessage(error));
    }
  };

  return (
    <Card title="路由规则" className={className}>
      <Space orientation="vertical" size="middle" style={{ width: '100%' }}>
        <Space wrap size="large">
          <Space>
            <Switch
              aria-label="单页应用回退"
              checked={spa_fallback}
              disabled={!editable}
              loading={update.isPending}
              onChange={(checked) => toggle({ spa_fallback: checked })}
            />
            单页应用回退（找不到的路径返回 index.html）
          </Space>
          <Space>
            <Switch
              aria-label="简洁网址"
              checked={clean_urls}
              disabled={!editable}
              loading={update.isPending}
              onChange={(checked) => toggle({ clean_urls: checked })}
            />
            简洁网址（/about 打开 about.html）
          </Space>
        </Space>
        <SiteRulesText rules={rules} />
      </Space>
    </Card>
  );
}

/** A version's _redirects and _headers, one tab each; an empty state when it has neither. */
export function SiteRulesText({
  rules,
  version = '最新版本',
}: {
  rules: SiteRulesDto | null;
  /** Which version it is, in the empty state ("线上 v3"). */
  version?: string;
}) {
  if (!rules || (rules.redirects === null && rules.headers === null)) {
    return (
      <Empty
        image={Empty.PRESENTED_IMAGE_SIMPLE}
        description={`${version}没有 _redirects 或 _headers 文件`}
      />
    );
  }
  const items = [
    ...(rules.redirects !== null ? [{ key: 'redirects', label: '_redirects', text: rules.redirects }] : []),
    ...(rules.headers !== null ? [{ key: 'headers', label: '_headers', text: rules.headers }] : []),
  ];
  return (
    <Tabs
      size="small"
      items={items.map((item) => ({
        key: item.key,
        label: item.label,
        children: (
          <Typography.Paragraph>
            <pre className="site-rules__text" style={{ maxHeight: 320, overflow: 'auto' }}>
              {item.text}
            </pre>
          </Typography.Paragraph>
        ),
      }))}
    />
  );
}
