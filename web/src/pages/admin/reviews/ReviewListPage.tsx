import {
  type AdminProjectCounts,
  type AdminProjectDto,
  type AdminTab,
  CONTENT_CHECK_LEVEL_LABELS,
  messages,
  STATUS_LABELS,
} from '@sitehall/contracts';
import { Badge, Card, Select, Space, type TableProps, Tabs, Tag, Tooltip, Typography } from 'antd';
import { Link } from 'react-router-dom';
import { useAdminProjects } from '../../../api/admin';
import { AdminStatusTag } from '../../../components/admin/AdminStatusTag';
import { BatchActionBar } from '../../../components/admin/BatchActionBar';
import { ContentCheckBadge, ContentCheckReason } from '../../../components/admin/ContentCheckBadge';
import { PagedTable } from '../../../components/admin/PagedTable';
import { ProjectActionButtons } from '../../../components/admin/ProjectActionButtons';
import { ProjectListToolbar } from '../../../components/admin/ProjectListToolbar';
import { uploadTimeOf, versionSummary } from '../../../components/admin/projectFacts';
import { useReturnState } from '../../../components/admin/returnTo';
import {
  type AdminRiskFilter,
  QUEUE_SORTS,
  useAdminListParams,
} from '../../../components/admin/useAdminListParams';
import {
  useKeptRows,
  useRowSelection,
  useStayOnExistingPage,
} from '../../../components/admin/useListAddress';
import { useProjectActions } from '../../../components/admin/useProjectActions';
import { LinkButton } from '../../../components/LinkButton';
import { PageHeader } from '../../../components/PageHeader';
import { useWideLayout } from '../../../hooks/useWideLayout';
import { formatDateTime } from '../../../lib/format';
import './reviews.css';

const DEFAULT_PAGE_SIZE = 10;

/** The risk filter's choices: the content check's levels, from the most severe. */
const RISK_OPTIONS: Array<{ value: AdminRiskFilter; label: string }> = [
  { value: 'any', label: '全部风险等级' },
  { value: 'high', label: CONTENT_CHECK_LEVEL_LABELS.high },
  { value: 'medium', label: CONTENT_CHECK_LEVEL_LABELS.medium },
  { value: 'low', label: CONTENT_CHECK_LEVEL_LABELS.low },
  { value: 'info', label: CONTENT_CHECK_LEVEL_LABELS.info },
  { value: 'clean', label: CONTENT_CHECK_LEVEL_LABELS.clean },
  { value: 'unchecked', label: messages.review.contentCheck.notChecked },
];

/**
 * The tabs in the spec's order (all, pending, approved, rejected, published), then taken down.
 * 已发布 lists every live project, 精选 the featured part of them (docs/decisions/review.md "Review list").
 */
const TABS: Array<{ key: AdminTab; label: string }> = [
  { key: 'all', label: '全部' },
  { key: 'pending', label: STATUS_LABELS.pending },
  { key: 'approved', label: STATUS_LABELS.approved },
  { key: 'rejected', label: STATUS_LABELS.rejected },
  { key: 'published', label: STATUS_LABELS.published },
  { key: 'taken_down', label: STATUS_LABELS.taken_down },
];

const EMPTY_TEXT: Record<AdminTab, string> = {
  all: '暂无项目',
  pending: '暂无待审核的项目',
  approved: '暂无已发布的项目',
  rejected: '暂无已拒绝的项目',
  published: '暂无精选的项目',
  taken_down: '暂无已下线的项目',
};

function tabItems(counts: AdminProjectCounts | undefined) {
  return TABS.map(({ key, label }) => ({
    key,
    label: (
      <span className="review-tabs__label">
        {label}
        <span
          className={
            key === 'pending' && counts?.pending
              ? 'review-tabs__count review-tabs__count--alert'
              : 'review-tabs__count'
          }
        >
          {counts?.[key] ?? '–'}
        </span>
      </span>
    ),
  }));
}

export function ReviewListPage() {
  const list = useAdminListParams(DEFAULT_PAGE_SIZE, QUEUE_SORTS);
  const projects = useAdminProjects(list.query);
  const actions = useProjectActions();
  const selection = useRowSelection(list.filter, projects.data?.projects ?? []);
  const shown = useKeptRows(list.query, projects.data?.projects ?? [], actions.decided);
  const wide = useWideLayout();
  const back = useReturnState();
  useStayOnExistingPage(list, projects.data?.pagination.total_pages);

  const columns: TableProps<AdminProjectDto>['columns'] = [
    {
      title: '项目',
      key: 'project',
      render: (_, project) => (
        <div className="admin-project-cell">
          <Link to={`/admin/reviews/${project.id}`} state={back} className="admin-project-cell__name">
            {project.name}
          </Link>
          <Typography.Text type="secondary" ellipsis className="admin-project-cell__desc">
            {project.description || messages.project.noDescription}
          </Typography.Text>
          <ContentCheckReason check={project.content_check} />
        </div>
      ),
    },
    {
      title: '所有者',
      key: 'owner',
      width: 100,
      ellipsis: true,
      render: (_, project) => project.owner.username,
    },
    {
      title: '状态',
      key: 'status',
      width: 96,
      render: (_, project) => (
        <Space size={4} wrap>
          <AdminStatusTag status={project.status} />
          {project.is_live && (
            <Tooltip title="站点正在线上提供访问">
              <Badge status="success" text="在线" className="review-table__live" />
            </Tooltip>
          )}
        </Space>
      ),
    },
    {
      title: '内容检查',
      key: 'check',
      // Room for the longest badge, 未发现已知风险 (at 96 px it ran into the version column).
      width: 128,
      render: (_, project) => (
        <Space size={4} orientation="vertical">
          <ContentCheckBadge check={project.content_check} />
          {/* Not a risk, but what goes live at once: an address that opens on a 404. */}
          {project.entry_file === null && project.file_count > 0 && (
            <Tooltip title="没有 index.html（也没有唯一的根目录页面），上线后打开站点地址会显示 404">
              <Tag color="warning" className="review-table__no-entry">
                无首页
              </Tag>
            </Tooltip>
          )}
        </Space>
      ),
    },
    {
      title: '版本',
      key: 'version',
      width: 110,
      render: (_, project) => <span className="review-table__version">{versionSummary(project)}</span>,
    },
    {
      title: '上传时间',
      key: 'uploaded',
      width: 140,
      render: (_, project) => (
        <span className="review-table__time">{formatDateTime(uploadTimeOf(project))}</span>
      ),
    },
    {
      title: '操作',
      key: 'actions',
      width: 176,
      // Pinned beside the rows on a wide screen; on a phone it would cover them.
      fixed: wide ? 'right' : undefined,
      render: (_, project) => (
        <Space size={6} wrap>
          <LinkButton
            size="small"
            type="link"
            to={`/admin/reviews/${project.id}`}
            state={back}
            className="review-table__detail"
          >
            详情
          </LinkButton>
          <ProjectActionButtons project={project} actions={actions} />
        </Space>
      ),
    },
  ];

  return (
    <>
      <PageHeader
        title="项目审核"
        description="审核用户提交的项目与新版本：通过后站点立即上线；设为精选的站点在展厅带有精选标记，可按精选筛选。"
      />
      <Card className="review-card">
        <Tabs
          activeKey={list.status}
          items={tabItems(projects.data?.counts)}
          onChange={(key) => list.update({ status: key as AdminTab, page: 1 })}
          className="review-tabs"
        />
        <ProjectListToolbar
          list={list}
          refresh={() => projects.refetch()}
          refreshing={projects.isFetching && !projects.isPending}
        >
          <Select<AdminRiskFilter>
            aria-label="风险等级"
            value={list.risk}
            onChange={(risk) => list.update({ risk, page: 1 })}
            options={RISK_OPTIONS}
            className="review-toolbar__risk"
          />
        </ProjectListToolbar>

        <BatchActionBar selected={selection.selected} onDone={selection.clear} />

        <PagedTable<AdminProjectDto>
          query={projects}
          rows={shown}
          columns={columns}
          // Fits the content area of a 1280-pixel window beside the admin menu; narrower scrolls,
          // and a phone shows each project as a card.
          scroll={{ x: 950 }}
          stackOnPhone
          rowSelection={selection.rowSelection}
          failedTitle={messages.review.reviewListFailed}
          paging={list.paging(projects.data?.pagination.total_count ?? 0)}
          emptyText={list.search ? `没有找到匹配“${list.search}”的项目` : EMPTY_TEXT[list.status]}
        />
      </Card>
      {actions.dialog}
    </>
  );
}
