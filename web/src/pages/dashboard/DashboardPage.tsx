/**
 * 控制台 (docs/product.md §2 "Dashboard"): a greeting, the four counters of the owner's projects, the five
 * newest projects, the storage they use, quick actions and usage tips.
 */
import './dashboard.css';
import {
  AppstoreOutlined,
  CheckCircleOutlined,
  ClockCircleOutlined,
  CloudUploadOutlined,
  FolderOpenOutlined,
  GlobalOutlined,
  ReloadOutlined,
  RightOutlined,
} from '@ant-design/icons';
import { DASHBOARD_RECENT_COUNT, type MyProjectStats, messages, type ProjectDto } from '@sitehall/contracts';
import { Alert, Button, Card, Col, Empty, Row, Skeleton, Typography } from 'antd';
import type { ReactNode } from 'react';
import { Link, useLocation } from 'react-router-dom';
import { errorMessage } from '../../api/client';
import { useMyProjects } from '../../api/projects';
import { LinkButton } from '../../components/LinkButton';
import { PageHeader } from '../../components/PageHeader';
import { StatusTag } from '../../components/StatusTag';
import { StorageUsage } from '../../components/StorageUsage';
import { type DashboardState, useAuth } from '../../hooks/useAuth';
import { formatDate } from '../../lib/format';
import { INITIAL_PASSWORD_NOTE } from '../../lib/initial-password';
import { newVersionNote } from '../../lib/project-status';

const numberFormat = new Intl.NumberFormat('zh-CN');

interface Counter {
  key: keyof MyProjectStats;
  title: string;
  icon: ReactNode;
  tone: string;
  /** Where the counter leads in my projects. */
  to: string;
}

const COUNTERS: Counter[] = [
  { key: 'total', title: '总项目', icon: <AppstoreOutlined />, tone: 'indigo', to: '/projects' },
  {
    key: 'pending',
    title: '待审核',
    icon: <ClockCircleOutlined />,
    tone: 'amber',
    to: '/projects?status=pending',
  },
  // Approved, featured, rejected and taken down alike: 已审核 read as "approved" (7 = 6 live + 1 rejected).
  { key: 'reviewed', title: '已处理', icon: <CheckCircleOutlined />, tone: 'sky', to: '/projects' },
  {
    key: 'published',
    title: '已发布',
    icon: <GlobalOutlined />,
    tone: 'emerald',
    to: '/projects?status=approved',
  },
];

function Counters({ stats, loading }: { stats: MyProjectStats | undefined; loading: boolean }) {
  return (
    <Row gutter={[16, 16]} className="dashboard-counters">
      {COUNTERS.map((counter) => (
        <Col xs={12} lg={6} key={counter.key}>
          <Link
            to={counter.to}
            className="dashboard-counter"
            aria-label={`${counter.title} ${stats?.[counter.key] ?? ''}`}
          >
            <span className={`dashboard-counter__icon dashboard-counter__icon--${counter.tone}`} aria-hidden>
              {counter.icon}
            </span>
            <span className="dashboard-counter__text">
              <span className="dashboard-counter__title">{counter.title}</span>
              <span className="dashboard-counter__value" data-testid={`counter-${counter.key}`}>
                {loading || !stats ? '—' : numberFormat.format(stats[counter.key])}
              </span>
            </span>
          </Link>
        </Col>
      ))}
    </Row>
  );
}

function RecentProject({ project }: { project: ProjectDto }) {
  const note = newVersionNote(project);
  return (
    <li className="recent-project">
      <div className="recent-project__main">
        <div className="recent-project__title-row">
          <Link to={`/projects/${project.id}`} className="recent-project__name">
            {project.name}
          </Link>
          <StatusTag status={project.status} />
        </div>
        {note && (
          <Typography.Text type="secondary" className="recent-project__note">
            {note}
          </Typography.Text>
        )}
        <Typography.Paragraph type="secondary" ellipsis className="recent-project__description">
          {project.description || messages.project.noDescription}
        </Typography.Paragraph>
      </div>
      <div className="recent-project__side">
        <Typography.Text type="secondary" className="recent-project__date">
          创建于 {formatDate(project.created_at)}
        </Typography.Text>
        <Link to={`/projects/${project.id}`} className="recent-project__link">
          查看详情 <RightOutlined aria-hidden />
        </Link>
      </div>
    </li>
  );
}

type RecentList = ReturnType<typeof useMyProjects>;

function RecentProjects({ list }: { list: RecentList }) {
  const projects = list.data?.projects ?? [];
  if (list.isPending) return <Skeleton active paragraph={{ rows: 5 }} />;
  if (list.isError) {
    return (
      <Alert
        type="error"
        showIcon
        title={messages.project.loadFailed}
        description={errorMessage(list.error)}
        action={
          <Button size="small" icon={<ReloadOutlined aria-hidden />} onClick={() => list.refetch()}>
            重试
          </Button>
        }
      />
    );
  }
  if (projects.length === 0) {
    return (
      <Empty
        image={Empty.PRESENTED_IMAGE_SIMPLE}
        description={
          <>
            <div className="dashboard-empty__title">还没有项目</div>
            <Typography.Text type="secondary">
              上传你的第一个静态网站，审核通过后即可拥有专属访问地址。
            </Typography.Text>
          </>
        }
      >
        <LinkButton to="/upload" type="primary" icon={<CloudUploadOutlined aria-hidden />}>
          上传第一个项目
        </LinkButton>
      </Empty>
    );
  }
  return (
    <ul className="recent-projects" aria-label="最近项目">
      {projects.map((project) => (
        <RecentProject key={project.id} project={project} />
      ))}
    </ul>
  );
}

export function DashboardPage() {
  const { user } = useAuth();
  // The newest projects come with the counters of all of them.
  const recent = useMyProjects({ status: 'all', page: 1, page_size: DASHBOARD_RECENT_COUNT });
  // Why the app brought the visitor here (an admin made a user meanwhile: useAuth).
  const notice = (useLocation().state as DashboardState | null)?.notice;

  return (
    <>
      <PageHeader
        title="控制台"
        description={`你好，${user?.username ?? ''}！在这里查看项目概况与审核进度。`}
        extra={
          <LinkButton to="/upload" type="primary" icon={<CloudUploadOutlined aria-hidden />}>
            上传项目
          </LinkButton>
        }
      />
      {notice && (
        <Alert type="info" showIcon closable className="dashboard-alert" role="status" title={notice} />
      )}
      {user?.password_initial && (
        <Alert
          type="warning"
          showIcon
          className="dashboard-alert"
          data-testid="initial-password-alert"
          title={INITIAL_PASSWORD_NOTE}
          action={<Link to="/profile#change-password">去修改密码</Link>}
        />
      )}
      <Counters stats={recent.data?.stats} loading={recent.isPending} />
      <Row gutter={[24, 24]}>
        <Col xs={24} lg={16}>
          <Card
            title="最近项目"
            className="dashboard-card"
            extra={
              <Link to="/projects">
                查看全部 <RightOutlined aria-hidden />
              </Link>
            }
          >
            <RecentProjects list={recent} />
          </Card>
        </Col>
        <Col xs={24} lg={8}>
          <div className="dashboard-side">
            {!recent.isError && (
              <Card className="dashboard-card">
                <StorageUsage usage={recent.data?.storage} />
              </Card>
            )}
            <Card title="快捷操作" className="dashboard-card">
              <div className="quick-actions">
                <LinkButton to="/upload" type="primary" block icon={<CloudUploadOutlined aria-hidden />}>
                  上传新项目
                </LinkButton>
                <LinkButton to="/projects" block icon={<FolderOpenOutlined aria-hidden />}>
                  管理我的项目
                </LinkButton>
              </div>
            </Card>
            <Card title="使用提示" className="dashboard-card">
              <ul className="usage-tips">
                <li>支持上传 HTML、CSS、JavaScript、图片等静态文件，或打包好的压缩包。</li>
                <li>项目上传后需经管理员审核，审核通过后才会发布。</li>
                <li>发布后的项目拥有独立的访问地址，可以分享给任何人。</li>
                <li>你可以随时更新项目文件、修改信息或删除项目。</li>
              </ul>
            </Card>
          </div>
        </Col>
      </Row>
    </>
  );
}
