/**
 * 项目详情 (docs/product.md §2 "Project detail"): everything about one of the owner's projects: information,
 * files, versions, review history, access and preview, statistics, and what can be done with it.
 */
import './project-detail.css';
import { ArrowLeftOutlined, ReloadOutlined } from '@ant-design/icons';
import { messages } from '@sitehall/contracts';
import { App, Button, Card, Col, Grid, Result, Row } from 'antd';
import { useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { errorMessage, toApiError } from '../../api/client';
import { useProject, useUpdateProject } from '../../api/projects';
import { CustomDomainsCard } from '../../components/CustomDomainsCard';
import { DetailSkeleton } from '../../components/DetailSkeleton';
import { LinkButton } from '../../components/LinkButton';
import { useNavHere } from '../../components/layout/NavHere';
import { PageHeader } from '../../components/PageHeader';
import { SiteRoutingCard } from '../../components/SiteRoutingCard';
import { sitePathOf, UsabilityCard } from '../../components/UsabilityFindings';
import { VersionsCard } from '../../components/VersionsCard';
import { useAuth } from '../../hooks/useAuth';
import { AnalyticsCard } from './AnalyticsCard';
import { FilesCard, ReviewHistoryCard } from './HistoryCards';
import { EditProjectModal, NewVersionModal } from './ProjectModals';
import { BasicInfoCard, FileInfoCard, StatusNotice } from './ProjectOverview';
import { AccessCard, ActionsCard, StatsCard } from './ProjectSidebar';

/**
 * Where the page leads back to: the owner's 我的项目, or for an admin on another account's project
 * the admin panel's 项目管理, where the navigation shows them to be (docs/product.md "Project detail").
 */
interface BackTo {
  to: string;
  label: string;
}
const MY_PROJECTS: BackTo = { to: '/projects', label: '返回我的项目' };
const PROJECT_MANAGEMENT: BackTo = { to: '/admin/projects', label: '返回项目管理' };

const backLinkTo = (back: BackTo) => (
  <Link to={back.to}>
    <ArrowLeftOutlined aria-hidden /> {back.label}
  </Link>
);

function parseId(raw: string | undefined): number {
  return raw && /^\d+$/.test(raw) ? Number(raw) : Number.NaN;
}

export function ProjectDetailPage() {
  const id = parseId(useParams().id);
  const validId = Number.isInteger(id) && id > 0;
  const query = useProject(id);
  const { user, hasPermission } = useAuth();
  const othersProject =
    query.data !== undefined && user !== null && query.data.owner.id !== user.id && hasPermission('admin');
  const back = othersProject ? PROJECT_MANAGEMENT : MY_PROJECTS;
  useNavHere(othersProject ? PROJECT_MANAGEMENT.to : undefined);
  const backLink = backLinkTo(back);
  const [editing, setEditing] = useState(false);
  const [uploading, setUploading] = useState(false);
  // Two columns from lg up; below, one column, whose first cards are what the owner came to do.
  const twoColumns = Grid.useBreakpoint().lg ?? true;

  const notFound = !validId || (query.isError && toApiError(query.error).status === 404);
  if (notFound) {
    return (
      <>
        <PageHeader title="项目详情" back={backLink} />
        <Card>
          <Result
            status="404"
            title={messages.project.notFound}
            subTitle="该项目可能已被删除，或你没有查看它的权限。"
            extra={
              <LinkButton to={back.to} type="primary" icon={<ArrowLeftOutlined aria-hidden />}>
                {back.label}
              </LinkButton>
            }
          />
        </Card>
      </>
    );
  }

  if (query.isError) {
    return (
      <>
        <PageHeader title="项目详情" back={backLink} />
        <Card>
          <Result
            status="error"
            title={messages.project.loadFailed}
            subTitle={errorMessage(query.error)}
            extra={
              <Button type="primary" icon={<ReloadOutlined aria-hidden />} onClick={() => query.refetch()}>
                重试
              </Button>
            }
          />
        </Card>
      </>
    );
  }

  const project = query.data;
  if (!project) {
    return (
      <>
        <PageHeader title="项目详情" back={backLink} />
        <DetailSkeleton gutter={24} />
      </>
    );
  }

  // On a phone these come first: visiting, editing and uploading, not after every other card.
  const actions = (
    <>
      <ActionsCard
        project={project}
        backTo={back.to}
        onEdit={() => setEditing(true)}
        onNewVersion={() => setUploading(true)}
      />
      <AccessCard project={project} />
    </>
  );

  return (
    <>
      <PageHeader
        title={project.name}
        description={`项目ID ${project.id} · 由 ${project.owner.username} 上传`}
        back={backLink}
      />
      <StatusNotice project={project} onNewVersion={() => setUploading(true)} />
      <Row gutter={[24, 24]}>
        <Col xs={24} lg={16}>
          <div className="detail-column">
            {!twoColumns && actions}
            <BasicInfoCard project={project} />
            <FileInfoCard project={project} />
            <UsabilityCard
              findings={project.usability_findings}
              sitePath={sitePathOf(project.access_url)}
              className="detail-card"
              fixes={{ history_routing: <EnableSpaFallback projectId={project.id} /> }}
            />
            <FilesCard project={project} />
            <SiteRoutingCard project={project} editable className="detail-card" />
            <CustomDomainsCard projectId={project.id} className="detail-card" />
            <VersionsCard project={project} className="detail-card" audience="owner" />
            <ReviewHistoryCard comments={project.review_comments ?? []} />
          </div>
        </Col>
        <Col xs={24} lg={8}>
          <div className="detail-column">
            {twoColumns && actions}
            <StatsCard project={project} />
            <AnalyticsCard projectId={project.id} />
          </div>
        </Col>
      </Row>
      <EditProjectModal project={project} open={editing} onClose={() => setEditing(false)} />
      <NewVersionModal project={project} open={uploading} onClose={() => setUploading(false)} />
    </>
  );
}

/**
 * The fix of a client-side router's note, in one click: the project's SPA fallback turned on (the
 * 路由规则 card's switch, further down the page). The note goes once the project is read again.
 */
function EnableSpaFallback({ projectId }: { projectId: number }) {
  const { message } = App.useApp();
  const update = useUpdateProject(projectId);
  const enable = async () => {
    try {
      await update.mutateAsync({ spa_fallback: true });
      message.success('已开启单页应用回退');
    } catch (error) {
      message.error(errorMessage(error));
    }
  };
  return (
    <Button size="small" type="primary" ghost loading={update.isPending} onClick={enable}>
      开启单页应用回退
    </Button>
  );
}
