import {
  AuditOutlined,
  CheckCircleOutlined,
  ClockCircleOutlined,
  CloseCircleOutlined,
  EyeOutlined,
  FileSearchOutlined,
  ProjectOutlined,
  RightOutlined,
  SettingOutlined,
  TeamOutlined,
} from '@ant-design/icons';
import {
  ADMIN_PENDING_COUNT,
  type AdminProjectDto,
  type AdminStatsDto,
  countOfFilter,
  format,
  messages,
} from '@sitehall/contracts';
import { Alert, Card, Col, Empty, Row, Skeleton, Space, Tag, Typography } from 'antd';
import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { useAdminStats, usePendingProjects } from '../../../api/admin';
import { errorMessage } from '../../../api/client';
import { ContentCheckBadge } from '../../../components/admin/ContentCheckBadge';
import { LoadFailed } from '../../../components/admin/LoadFailed';
import { ProjectActionButtons } from '../../../components/admin/ProjectActionButtons';
import { uploadTimeOf, versionSummary } from '../../../components/admin/projectFacts';
import { useReturnState } from '../../../components/admin/returnTo';
import { StatCard } from '../../../components/admin/StatCard';
import { TrendIndicator } from '../../../components/admin/TrendIndicator';
import { useProjectActions } from '../../../components/admin/useProjectActions';
import { LinkButton } from '../../../components/LinkButton';
import { PageHeader } from '../../../components/PageHeader';
import { formatDateTime } from '../../../lib/format';
import './dashboard.css';

const PENDING_QUERY = { page: 1, page_size: ADMIN_PENDING_COUNT };

function StatCards({ stats }: { stats: AdminStatsDto }) {
  const { projects, users, views, downloads, weekly } = stats;
  const cards: Array<{
    key: string;
    title: string;
    value: number;
    icon: ReactNode;
    tone: string;
    footer: ReactNode;
  }> = [
    {
      key: 'total',
      title: '项目总数',
      value: projects.total,
      icon: <ProjectOutlined />,
      tone: 'indigo',
      footer: (
        <>
          <TrendIndicator trend={weekly.projects} what="新项目" unit="个" />
          <span>在线 {projects.live}</span>
        </>
      ),
    },
    {
      key: 'pending',
      title: '待审核',
      value: projects.pending,
      icon: <ClockCircleOutlined />,
      tone: 'amber',
      footer: (
        <>
          <TrendIndicator trend={weekly.uploads} what="上传" unit="次" />
        </>
      ),
    },
    {
      key: 'approved',
      title: '已发布',
      // The review list's 已发布 tab counts the same (featured included).
      value: countOfFilter(projects, 'approved'),
      icon: <CheckCircleOutlined />,
      tone: 'emerald',
      footer: (
        <>
          <TrendIndicator trend={weekly.approvals} what="通过" unit="次" />
          <span>精选 {projects.published}</span>
        </>
      ),
    },
    {
      key: 'rejected',
      title: '已拒绝',
      value: projects.rejected,
      icon: <CloseCircleOutlined />,
      tone: 'rose',
      footer: (
        <>
          <TrendIndicator trend={weekly.rejections} what="拒绝或下线" unit="次" />
          <span>已下线 {projects.taken_down}</span>
        </>
      ),
    },
    {
      key: 'users',
      title: '用户总数',
      value: users.total,
      icon: <TeamOutlined />,
      tone: 'sky',
      footer: (
        <>
          <TrendIndicator trend={weekly.users} what="新用户" unit="人" />
          <span>
            管理员 {users.admins} · 停用 {users.disabled}
          </span>
        </>
      ),
    },
    {
      key: 'views',
      title: '总访问量',
      value: views.total,
      icon: <EyeOutlined />,
      tone: 'violet',
      footer: (
        <>
          <TrendIndicator trend={weekly.views} what="访问" unit="次" />
          <span>下载 {downloads.total} 次</span>
        </>
      ),
    },
  ];
  return (
    <Row gutter={[16, 16]} className="admin-dashboard__stats">
      {cards.map(({ key, ...card }) => (
        <Col key={key} xs={24} sm={12} xl={8}>
          <StatCard {...card} />
        </Col>
      ))}
    </Row>
  );
}

function PendingItem({
  project,
  actions,
}: {
  project: AdminProjectDto;
  actions: ReturnType<typeof useProjectActions>;
}) {
  const back = useReturnState();
  return (
    <li className="split-list__item pending-item">
      <div className="pending-item__main">
        <div className="pending-item__title">
          <Link to={`/admin/reviews/${project.id}`} state={back} className="pending-item__name">
            {project.name}
          </Link>
          <ContentCheckBadge check={project.content_check} />
          <Typography.Text type="secondary" className="pending-item__version">
            {versionSummary(project)}
          </Typography.Text>
        </div>
        <div className="pending-item__meta">
          <span>所有者：{project.owner.username}</span>
          <span>上传于 {formatDateTime(uploadTimeOf(project))}</span>
          <span>{project.file_count} 个文件</span>
        </div>
        {project.file_names && project.file_names.length > 0 && (
          <div className="pending-item__files">
            {project.file_names.map((name) => (
              <Tag key={name} className="pending-item__file">
                {name}
              </Tag>
            ))}
            {project.file_count > project.file_names.length && (
              <Typography.Text type="secondary">等 {project.file_count} 个文件</Typography.Text>
            )}
          </div>
        )}
      </div>
      <Space className="pending-item__actions" wrap>
        <LinkButton size="small" to={`/admin/reviews/${project.id}`} state={back}>
          详情
        </LinkButton>
        <ProjectActionButtons project={project} actions={actions} only={['approve', 'reject']} />
      </Space>
    </li>
  );
}

function PendingProjects() {
  const pending = usePendingProjects(PENDING_QUERY);
  const actions = useProjectActions();
  const total = pending.data?.pagination.total_count;

  return (
    <Card
      title={
        <span>
          待审核项目
          {total !== undefined && total > 0 && <Tag className="admin-dashboard__count">{total}</Tag>}
        </span>
      }
      extra={
        <Link to="/admin/reviews?status=pending">
          查看全部审核 <RightOutlined aria-hidden />
        </Link>
      }
      className="admin-dashboard__pending"
    >
      {pending.isError ? (
        <LoadFailed
          status="warning"
          title={messages.review.adminDataFailed}
          error={pending.error}
          onRetry={() => pending.refetch()}
        />
      ) : pending.isPending ? (
        <Skeleton active paragraph={{ rows: 6 }} />
      ) : pending.data.projects.length === 0 ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description="暂无待审核的项目，所有提交都已处理" />
      ) : (
        <>
          <Typography.Paragraph type="secondary" className="admin-dashboard__hint">
            等待时间最长的 {pending.data.projects.length} 个项目，最早提交的排在最前。
          </Typography.Paragraph>
          <ul className="split-list" aria-label="待审核项目">
            {pending.data.projects.map((project) => (
              <PendingItem key={project.id} project={project} actions={actions} />
            ))}
          </ul>
        </>
      )}
      {actions.dialog}
    </Card>
  );
}

const QUICK_LINKS = [
  { to: '/admin/reviews', title: '项目审核', text: '审核上传的项目与新版本', icon: <AuditOutlined /> },
  { to: '/admin/users', title: '用户管理', text: '创建账号、修改角色、停用账号', icon: <TeamOutlined /> },
  { to: '/admin/projects', title: '项目管理', text: '全部项目、访问与下载统计', icon: <ProjectOutlined /> },
  {
    to: '/admin/settings',
    title: '系统设置',
    text: '上传限制、文件类型与预览有效期',
    icon: <SettingOutlined />,
  },
  {
    to: '/admin/audit-logs',
    title: '审计日志',
    text: '登录、账号与审核操作记录',
    icon: <FileSearchOutlined />,
  },
];

function QuickLinks() {
  return (
    <Card title="快捷入口" className="admin-dashboard__links">
      <nav aria-label="快捷入口">
        <ul className="quick-links">
          {QUICK_LINKS.map((link) => (
            <li key={link.to}>
              <Link to={link.to} className="quick-links__item">
                <span className="quick-links__icon" aria-hidden>
                  {link.icon}
                </span>
                <span className="quick-links__text">
                  <span className="quick-links__title">{link.title}</span>
                  <span className="quick-links__desc">{link.text}</span>
                </span>
                <RightOutlined className="quick-links__arrow" aria-hidden />
              </Link>
            </li>
          ))}
        </ul>
      </nav>
    </Card>
  );
}

/** While no SITES_ORIGIN is set: what the sites share, and what production should set. */
function SiteIsolationWarning({ isolation }: { isolation: AdminStatsDto['site_isolation'] }) {
  const { mode, sites_port: port } = isolation;
  if (mode !== 'sandboxed' && mode !== 'sites_port') return null;
  const text = messages.common;
  return (
    <Alert
      type="warning"
      showIcon
      className="admin-dashboard__alert"
      data-testid="site-isolation-warning"
      title={mode === 'sites_port' ? text.sitesPortWarningTitle : text.sandboxedWarningTitle}
      description={
        mode === 'sites_port' ? format(text.sitesPortWarning, { port: port ?? '' }) : text.sandboxedWarning
      }
    />
  );
}

export function AdminDashboardPage() {
  const stats = useAdminStats();

  return (
    <>
      <PageHeader
        title="管理概览"
        description="平台项目、审核与访问情况一览；趋势为最近 7 天与之前 7 天的对比。"
        extra={
          <LinkButton to="/admin/reviews" type="primary" icon={<AuditOutlined aria-hidden />}>
            进入审核列表
          </LinkButton>
        }
      />
      {stats.isError && !stats.data ? (
        <Card className="admin-dashboard__error">
          <LoadFailed
            title={messages.review.adminDataFailed}
            error={stats.error}
            onRetry={() => stats.refetch()}
          />
        </Card>
      ) : stats.isPending ? (
        <Row gutter={[16, 16]} className="admin-dashboard__stats">
          {Array.from({ length: 6 }, (_, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: placeholders without identity
            <Col key={i} xs={24} sm={12} xl={8}>
              <Card>
                <Skeleton active paragraph={{ rows: 1 }} />
              </Card>
            </Col>
          ))}
        </Row>
      ) : (
        <>
          {stats.isError && (
            <Alert
              type="warning"
              showIcon
              className="admin-dashboard__alert"
              title={`${messages.review.adminDataFailed}：${errorMessage(stats.error)}`}
            />
          )}
          <SiteIsolationWarning isolation={stats.data.site_isolation} />
          <StatCards stats={stats.data} />
        </>
      )}
      <Row gutter={[16, 16]}>
        <Col xs={24} lg={16}>
          <PendingProjects />
        </Col>
        <Col xs={24} lg={8}>
          <QuickLinks />
        </Col>
      </Row>
    </>
  );
}
