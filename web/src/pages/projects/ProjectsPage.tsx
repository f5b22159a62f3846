/**
 * 我的项目 (docs/product.md §2 "My projects"): the owner's projects as cards, filtered by status, a page at a
 * time, with the storage they use. Filter and page live in the address, so reload and back keep them.
 */
import './projects.css';
import { CloudUploadOutlined, ReloadOutlined } from '@ant-design/icons';
import type { OwnerFilter } from '@sitehall/contracts';
import { Button, Card, Col, Empty, Pagination, Result, Row, Segmented, Skeleton } from 'antd';
import { type ReactNode, useCallback, useEffect } from 'react';
import { useSearchParams } from 'react-router-dom';
import { errorMessage } from '../../api/client';
import { useMyProjects } from '../../api/projects';
import { LinkButton } from '../../components/LinkButton';
import { PageHeader } from '../../components/PageHeader';
import { StorageUsage } from '../../components/StorageUsage';
import { filterOf, PROJECT_FILTERS, parseFilter } from './filters';
import { ProjectCard } from './ProjectCard';

export const PROJECTS_PAGE_SIZE = 12;

function useProjectListParams() {
  const [params, setParams] = useSearchParams();
  const status = parseFilter(params.get('status'));
  const page = Math.max(1, Number.parseInt(params.get('page') ?? '', 10) || 1);
  const update = useCallback(
    (next: { status?: OwnerFilter; page?: number }, how: { replace?: boolean } = {}) => {
      const merged = { status, page, ...next };
      const out = new URLSearchParams();
      if (merged.status !== 'all') out.set('status', merged.status);
      if (merged.page > 1) out.set('page', String(merged.page));
      setParams(out, { replace: how.replace ?? false });
    },
    [status, page, setParams],
  );
  return { status, page, update };
}

const gridColumns = { xs: 24, md: 12, xl: 8 } as const;

function LoadingGrid() {
  return (
    <Row gutter={[20, 20]} aria-busy="true" aria-label="正在加载项目">
      {Array.from({ length: 6 }, (_, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: placeholders have nothing else to tell them apart
        <Col {...gridColumns} key={i}>
          <Card className="project-card">
            <Skeleton active paragraph={{ rows: 4 }} />
          </Card>
        </Col>
      ))}
    </Row>
  );
}

export function ProjectsPage() {
  const { status, page, update } = useProjectListParams();
  const list = useMyProjects({ status, page, page_size: PROJECTS_PAGE_SIZE });
  const filter = filterOf(status);
  const projects = list.data?.projects ?? [];
  const pagination = list.data?.pagination;
  const stats = list.data?.stats;
  const storage = list.data?.storage;

  // A page emptied by a delete (or an old link past the end) falls back to the last page.
  const lastPage = pagination?.total_pages;
  const pageIsEmpty = list.isSuccess && projects.length === 0;
  useEffect(() => {
    if (pageIsEmpty && lastPage !== undefined && page > 1 && lastPage < page)
      update({ page: Math.max(1, lastPage) }, { replace: true });
  }, [pageIsEmpty, lastPage, page, update]);

  let content: ReactNode;
  if (list.isPending) {
    content = <LoadingGrid />;
  } else if (list.isError) {
    content = (
      <Card>
        <Result
          status="error"
          title={errorMessage(list.error)}
          subTitle="项目列表暂时无法加载，请稍后再试。"
          extra={
            <Button type="primary" icon={<ReloadOutlined aria-hidden />} onClick={() => list.refetch()}>
              重试
            </Button>
          }
        />
      </Card>
    );
  } else if (projects.length === 0) {
    content = (
      <Card>
        <Empty className="projects-empty" description={filter.emptyText}>
          {status === 'all' && (
            <LinkButton to="/upload" type="primary" icon={<CloudUploadOutlined aria-hidden />}>
              上传项目
            </LinkButton>
          )}
        </Empty>
      </Card>
    );
  } else {
    content = (
      <>
        <Row
          gutter={[20, 20]}
          className={list.isPlaceholderData ? 'projects-grid projects-grid--stale' : 'projects-grid'}
        >
          {projects.map((project) => (
            <Col {...gridColumns} key={project.id}>
              <ProjectCard project={project} />
            </Col>
          ))}
        </Row>
        {pagination && pagination.total_count > PROJECTS_PAGE_SIZE && (
          <Pagination
            className="projects-pagination"
            current={pagination.current_page}
            pageSize={PROJECTS_PAGE_SIZE}
            total={pagination.total_count}
            showSizeChanger={false}
            showTotal={(total) => `共 ${total} 个项目`}
            onChange={(next) => update({ page: next })}
          />
        )}
      </>
    );
  }

  return (
    <>
      <PageHeader
        title="我的项目"
        description="查看和管理你上传的所有项目。"
        extra={
          <LinkButton to="/upload" type="primary" icon={<CloudUploadOutlined aria-hidden />}>
            上传项目
          </LinkButton>
        }
      />
      <div className="projects-toolbar">
        <Segmented<OwnerFilter>
          aria-label="按状态筛选"
          value={status}
          onChange={(value) => update({ status: value, page: 1 })}
          options={PROJECT_FILTERS.map((f) => ({
            value: f.value,
            label: (
              <span className="projects-filter">
                {f.label}
                {stats && <span className="projects-filter__count">{f.count(stats)}</span>}
              </span>
            ),
          }))}
        />
        {storage && (
          <div className="projects-toolbar__storage">
            <StorageUsage usage={storage} />
          </div>
        )}
      </div>
      {content}
    </>
  );
}
