import { ArrowLeftOutlined, ReloadOutlined } from '@ant-design/icons';
import { messages } from '@sitehall/contracts';
import { Button, Card, Col, Result, Row, Space } from 'antd';
import { Link, useLocation, useParams } from 'react-router-dom';
import { useAdminProject } from '../../../api/admin';
import { errorMessage, toApiError } from '../../../api/client';
import { AdminStatusTag } from '../../../components/admin/AdminStatusTag';
import { returnTarget } from '../../../components/admin/returnTo';
import { DetailSkeleton } from '../../../components/DetailSkeleton';
import { LinkButton } from '../../../components/LinkButton';
import { PageHeader } from '../../../components/PageHeader';
import { SiteRoutingCard } from '../../../components/SiteRoutingCard';
import { sitePathOf } from '../../../components/UsabilityFindings';
import { VersionsCard } from '../../../components/VersionsCard';
import { ContentCheckCard } from './ContentCheckCard';
import { DecisionBar } from './DecisionBar';
import { DecisionCard } from './DecisionCard';
import { FilesCard } from './FilesCard';
import { ProjectInfoCard } from './ProjectInfoCard';
import { RenderCard } from './RenderCard';
import { ReviewHistoryCard } from './ReviewHistoryCard';
import { StatsCard } from './StatsCard';
import { VersionDiffCard } from './VersionDiffCard';
import './review-detail.css';

/** The project id of the address, or null when it is not a positive whole number. */
export function parseProjectId(raw: string | undefined): number | null {
  if (!raw || !/^\d+$/.test(raw)) return null;
  const id = Number(raw);
  return Number.isSafeInteger(id) && id > 0 ? id : null;
}

/** Back to the admin page the detail was opened from, as it was (components/admin/returnTo.ts). */
function useBack() {
  const { to, label } = returnTarget(useLocation().state);
  return {
    link: (
      <Link to={to}>
        <ArrowLeftOutlined aria-hidden /> {label}
      </Link>
    ),
    button: (
      <LinkButton to={to} icon={<ArrowLeftOutlined aria-hidden />}>
        {label}
      </LinkButton>
    ),
  };
}

export function ReviewDetailPage() {
  const { id: rawId } = useParams();
  const id = parseProjectId(rawId);
  const detail = useAdminProject(id);
  const back = useBack();

  if (id === null) {
    return (
      <>
        <PageHeader title="审核详情" back={back.link} />
        <Card>
          <Result status="warning" title={messages.project.invalidId} extra={back.button} />
        </Card>
      </>
    );
  }

  if (detail.isError && !detail.data) {
    const notFound = toApiError(detail.error).status === 404;
    return (
      <>
        <PageHeader title="审核详情" back={back.link} />
        <Card>
          {notFound ? (
            <Result status="404" title={messages.project.notFound} extra={back.button} />
          ) : (
            <Result
              status="error"
              title={messages.review.reviewDetailFailed}
              subTitle={errorMessage(detail.error)}
              extra={
                <Space>
                  <Button
                    type="primary"
                    icon={<ReloadOutlined aria-hidden />}
                    onClick={() => detail.refetch()}
                  >
                    重新加载
                  </Button>
                  {back.button}
                </Space>
              }
            />
          )}
        </Card>
      </>
    );
  }

  if (detail.isPending) {
    return (
      <>
        <PageHeader title="审核详情" back={back.link} />
        <DetailSkeleton />
      </>
    );
  }

  const {
    project,
    content_check: check,
    content_check_version: checkVersion,
    diff,
    stats,
    renders,
  } = detail.data;

  return (
    <>
      <PageHeader
        title={`审核：${project.name}`}
        back={back.link}
        description={
          <span className="review-detail__subtitle">
            <AdminStatusTag status={project.status} />
            <span>
              项目 #{project.id} · 所有者 {project.owner.username}
            </span>
          </span>
        }
      />
      <Row gutter={[16, 16]} className="review-detail">
        <Col xs={24} xl={16} className="review-detail__main">
          <ProjectInfoCard project={project} />
          {diff && <VersionDiffCard diff={diff} projectId={project.id} />}
          <ContentCheckCard
            check={check}
            version={checkVersion}
            projectId={project.id}
            sitePath={sitePathOf(project.access_url)}
          />
          <FilesCard project={project} />
          <SiteRoutingCard project={project} editable={false} className="review-detail__card" />
          <VersionsCard project={project} className="review-detail__card" />
        </Col>
        <Col xs={24} xl={8} className="review-detail__side">
          <DecisionCard project={project} />
          <RenderCard renders={renders} />
          <StatsCard stats={stats} />
          <ReviewHistoryCard comments={project.review_comments ?? []} />
        </Col>
      </Row>
      <DecisionBar project={project} />
    </>
  );
}
