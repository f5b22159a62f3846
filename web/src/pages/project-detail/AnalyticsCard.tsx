/**
 * 访问分析 on the owner's project page (docs/notifications.md "Owner analytics"): views per day,
 * top pages, referring sites and traffic of the last 30 days, counted without cookies and
 * without keeping visitors' addresses.
 */
import { formatBytes, type ProjectAnalyticsData } from '@sitehall/contracts';
import { Alert, Card, Col, Row, Skeleton, Statistic, Table, Typography } from 'antd';
import { toApiError } from '../../api/client';
import { useProjectAnalytics } from '../../api/notifications';
import { ViewsChart } from '../../components/ViewsChart';

type TopPage = ProjectAnalyticsData['top_pages'][number];
type Referrer = ProjectAnalyticsData['referrers'][number];

export function AnalyticsCard({ projectId }: { projectId: number }) {
  const query = useProjectAnalytics(projectId);
  return (
    <Card title="访问分析" className="detail-card analytics-card" data-testid="analytics-card">
      {query.isPending ? (
        <Skeleton active paragraph={{ rows: 4 }} />
      ) : query.isError ? (
        <Alert type="error" showIcon title={toApiError(query.error).message} />
      ) : (
        <AnalyticsBody data={query.data} />
      )}
    </Card>
  );
}

/** A titled table of views by page or by referring host. */
function CountTable(props: {
  title: string;
  keyTitle: string;
  empty: string;
  rows: { key: string; views: number }[];
}) {
  return (
    <>
      <Typography.Title level={5} className="analytics-card__title">
        {props.title}
      </Typography.Title>
      <Table<{ key: string; views: number }>
        aria-label={props.title}
        rowKey="key"
        size="small"
        pagination={false}
        dataSource={props.rows}
        locale={{ emptyText: props.empty }}
        columns={[
          {
            key: 'key',
            title: props.keyTitle,
            render: (_: unknown, r) => <span className="analytics-card__key">{r.key}</span>,
          },
          { key: 'views', title: '浏览', dataIndex: 'views', align: 'right', width: 72 },
        ]}
      />
    </>
  );
}

function AnalyticsBody({ data }: { data: ProjectAnalyticsData }) {
  return (
    <>
      <Row gutter={[16, 16]}>
        <Col xs={12}>
          <Statistic title="近 30 天访问" value={data.total_views} />
        </Col>
        <Col xs={12}>
          <Statistic title="近 30 天流量" value={formatBytes(data.total_bytes)} />
        </Col>
      </Row>
      <ViewsChart days={data.days} />
      <CountTable
        title="热门页面"
        keyTitle="页面"
        empty="暂无页面访问"
        rows={data.top_pages.map((r: TopPage) => ({ key: `/${r.path}`, views: r.views }))}
      />
      <CountTable
        title="来源网站"
        keyTitle="网站"
        empty="暂无来自其他网站的访问"
        rows={data.referrers.map((r: Referrer) => ({ key: r.host, views: r.views }))}
      />
      <Typography.Paragraph type="secondary" className="analytics-card__note">
        统计不使用 Cookie，也不保存访客的 IP 地址；同一访客 30 分钟内只计一次访问，页面浏览按次计。
      </Typography.Paragraph>
    </>
  );
}
