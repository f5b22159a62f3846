import {
  AuditOutlined,
  ClockCircleOutlined,
  DashboardOutlined,
  GlobalOutlined,
  ProjectOutlined,
  TeamOutlined,
} from '@ant-design/icons';
import { countOfFilter, messages } from '@sitehall/contracts';
import { Alert, Card, Col, Row, Skeleton, Space } from 'antd';
import { useLocation } from 'react-router-dom';
import { useAdminStats } from '../../../api/admin';
import { LoadFailed } from '../../../components/admin/LoadFailed';
import { StatCard } from '../../../components/admin/StatCard';
import { LinkButton } from '../../../components/LinkButton';
import { PageHeader } from '../../../components/PageHeader';

/**
 * Any other /admin address: the admin panel with the platform's four counters, counted by the
 * server (the spec's placeholder showed 0s; here every number is real).
 */
export function AdminOverviewPage() {
  const { pathname } = useLocation();
  const stats = useAdminStats();

  return (
    <>
      <PageHeader
        title="管理后台"
        description="平台概况。请从左侧菜单或下方入口进入具体的管理页面。"
        extra={
          <LinkButton to="/admin/dashboard" type="primary" icon={<DashboardOutlined aria-hidden />}>
            管理概览
          </LinkButton>
        }
      />
      <Alert
        type="info"
        showIcon
        className="admin-card-alert"
        title={`没有找到管理页面“${pathname}”`}
        description="该地址不对应任何管理功能，下面是平台的实时统计。"
      />
      {stats.isError && !stats.data ? (
        <Card>
          <LoadFailed
            title={messages.review.adminDataFailed}
            error={stats.error}
            onRetry={() => stats.refetch()}
          />
        </Card>
      ) : (
        <Row gutter={[16, 16]}>
          {stats.isPending
            ? ['users', 'projects', 'pending', 'published'].map((key) => (
                <Col key={key} xs={24} sm={12} xl={6}>
                  <Card>
                    <Skeleton active paragraph={{ rows: 1 }} />
                  </Card>
                </Col>
              ))
            : [
                {
                  key: 'users',
                  title: '用户总数',
                  value: stats.data.users.total,
                  icon: <TeamOutlined />,
                  tone: 'sky',
                  footer: `管理员 ${stats.data.users.admins} 人`,
                },
                {
                  key: 'projects',
                  title: '项目总数',
                  value: stats.data.projects.total,
                  icon: <ProjectOutlined />,
                  tone: 'indigo',
                  footer: `在线 ${stats.data.projects.live} 个`,
                },
                {
                  key: 'pending',
                  title: '待审核',
                  value: stats.data.projects.pending,
                  icon: <ClockCircleOutlined />,
                  tone: 'amber',
                  footer: `近 7 天上传 ${stats.data.weekly.uploads.this_week} 次`,
                },
                {
                  key: 'published',
                  title: '已发布',
                  value: countOfFilter(stats.data.projects, 'approved'),
                  icon: <GlobalOutlined />,
                  tone: 'emerald',
                  footer: `其中精选 ${stats.data.projects.published} 个`,
                },
              ].map(({ key, ...card }) => (
                <Col key={key} xs={24} sm={12} xl={6}>
                  <StatCard {...card} />
                </Col>
              ))}
        </Row>
      )}
      <Card title="常用入口" className="admin-overview__links">
        <Space wrap>
          <LinkButton to="/admin/reviews" icon={<AuditOutlined aria-hidden />}>
            项目审核
          </LinkButton>
          <LinkButton to="/admin/users" icon={<TeamOutlined aria-hidden />}>
            用户管理
          </LinkButton>
          <LinkButton to="/admin/projects" icon={<ProjectOutlined aria-hidden />}>
            项目管理
          </LinkButton>
          <LinkButton to="/admin/settings">系统设置</LinkButton>
          <LinkButton to="/admin/audit-logs">审计日志</LinkButton>
        </Space>
      </Card>
    </>
  );
}
