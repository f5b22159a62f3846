import {
  DeleteOutlined,
  DownloadOutlined,
  DownOutlined,
  ExportOutlined,
  StarFilled,
} from '@ant-design/icons';
import {
  ADMIN_TABS,
  type AdminProjectDto,
  type AdminTab,
  format,
  formatBytes,
  messages,
  REVIEW_ACTION_LABELS,
  STATUS_LABELS,
} from '@sitehall/contracts';
import {
  App,
  Button,
  Card,
  Dropdown,
  Popconfirm,
  Select,
  Space,
  type TableProps,
  Tag,
  Tooltip,
  Typography,
} from 'antd';
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { useAdminProjects, useDeleteProjectAsAdmin, useDownloadProject } from '../../../api/admin';
import { errorMessage } from '../../../api/client';
import { AdminStatusTag } from '../../../components/admin/AdminStatusTag';
import { BatchActionBar } from '../../../components/admin/BatchActionBar';
import { DeleteReason } from '../../../components/admin/DeleteReason';
import { PagedTable } from '../../../components/admin/PagedTable';
import { ProjectListToolbar } from '../../../components/admin/ProjectListToolbar';
import { allowedActions, versionSummary } from '../../../components/admin/projectFacts';
import { useReturnState } from '../../../components/admin/returnTo';
import { useAdminListParams } from '../../../components/admin/useAdminListParams';
import {
  useKeptRows,
  useRowSelection,
  useStayOnExistingPage,
} from '../../../components/admin/useListAddress';
import { type ProjectActions, useProjectActions } from '../../../components/admin/useProjectActions';
import { LinkButton } from '../../../components/LinkButton';
import { PageHeader } from '../../../components/PageHeader';
import { useAuth } from '../../../hooks/useAuth';
import { useSiteAddress } from '../../../hooks/useSiteAddress';
import { useWideLayout } from '../../../hooks/useWideLayout';
import { formatDate } from '../../../lib/format';
import './projects.css';

const DEFAULT_PAGE_SIZE = 20;
const numberFormat = new Intl.NumberFormat('zh-CN');

function RowActions({ project, actions }: { project: AdminProjectDto; actions: ProjectActions }) {
  const { message } = App.useApp();
  const download = useDownloadProject();
  const remove = useDeleteProjectAsAdmin();
  const back = useReturnState();
  const { user } = useAuth();
  // Optional, as in the batch's 批量删除: the owner reads it in the notice that tells them.
  const [deleteReason, setDeleteReason] = useState('');
  // An admin deleting their own project tells nobody (docs/notifications.md), so asks no reason.
  const othersProject = user?.id !== project.owner.id;
  const reviewActions = allowedActions(project);

  const startDownload = async () => {
    try {
      await download.mutateAsync({ id: project.id });
    } catch (error) {
      message.error(`下载失败：${errorMessage(error)}`);
    }
  };

  const confirmDelete = async () => {
    try {
      await remove.mutateAsync({ id: project.id, comment: othersProject ? deleteReason : undefined });
      setDeleteReason('');
      message.success(messages.project.deleted);
    } catch (error) {
      message.error(format(messages.project.deleteFailedList, { message: errorMessage(error) }));
    }
  };

  return (
    <Space size={0}>
      <LinkButton size="small" type="link" to={`/admin/reviews/${project.id}`} state={back}>
        详情
      </LinkButton>
      <Tooltip title="下载">
        <Button
          size="small"
          type="link"
          icon={<DownloadOutlined aria-hidden />}
          loading={download.isPending}
          onClick={startDownload}
          aria-label={`下载 ${project.name}`}
        />
      </Tooltip>
      <Dropdown
        trigger={['click']}
        disabled={reviewActions.length === 0}
        menu={{
          items: reviewActions.map((action) => ({
            key: action,
            label: REVIEW_ACTION_LABELS[action],
            danger: action === 'reject' || action === 'takedown',
          })),
          onClick: ({ key }) => actions.start(project, key as (typeof reviewActions)[number]),
        }}
      >
        <Button size="small" type="link" aria-label={`审核操作 ${project.name}`}>
          审核 <DownOutlined aria-hidden />
        </Button>
      </Dropdown>
      <Popconfirm
        title="删除项目"
        description={
          othersProject ? (
            <DeleteReason
              text={`${messages.project.deleteConfirm}项目所有者（${project.owner.username}）会收到删除通知。`}
              value={deleteReason}
              onChange={setDeleteReason}
            />
          ) : (
            messages.project.deleteConfirm
          )
        }
        okText="确认删除"
        cancelText="取消"
        okButtonProps={{ danger: true }}
        onConfirm={confirmDelete}
      >
        <Button
          size="small"
          type="link"
          danger
          icon={<DeleteOutlined aria-hidden />}
          loading={remove.isPending}
          aria-label={`删除 ${project.name}`}
          title="删除"
        />
      </Popconfirm>
    </Space>
  );
}

export function AdminProjectsPage() {
  const list = useAdminListParams(DEFAULT_PAGE_SIZE);
  const projects = useAdminProjects(list.query);
  const actions = useProjectActions();
  const selection = useRowSelection(list.filter, projects.data?.projects ?? []);
  const shown = useKeptRows(list.query, projects.data?.projects ?? [], actions.decided);
  const wide = useWideLayout();
  const back = useReturnState();
  const siteAddress = useSiteAddress();
  useStayOnExistingPage(list, projects.data?.pagination.total_pages);

  const counts = projects.data?.counts;

  const columns: TableProps<AdminProjectDto>['columns'] = [
    {
      title: '项目',
      key: 'project',
      fixed: wide ? 'left' : undefined,
      width: 200,
      render: (_, project) => (
        <div className="admin-project-cell">
          <Link to={`/admin/reviews/${project.id}`} state={back} className="admin-project-cell__name">
            {project.name}
          </Link>
          <Typography.Text type="secondary" ellipsis className="admin-project-cell__desc">
            #{project.id} · {project.owner.username} · {versionSummary(project)}
          </Typography.Text>
        </div>
      ),
    },
    {
      title: '状态',
      key: 'status',
      width: 90,
      render: (_, project) => <AdminStatusTag status={project.status} />,
    },
    {
      title: '在线 / 精选',
      key: 'live',
      width: 120,
      render: (_, project) => (
        <Space size={6}>
          {project.is_live && project.access_url ? (
            <Typography.Link
              href={siteAddress(project.access_url)}
              target="_blank"
              rel="noopener noreferrer"
              aria-label={`打开 ${project.name} 的站点`}
            >
              <Tag color="success" className="admin-projects__live">
                在线 <ExportOutlined aria-hidden />
              </Tag>
            </Typography.Link>
          ) : (
            <Tag>未上线</Tag>
          )}
          {project.featured && (
            <Tooltip title="精选">
              <StarFilled className="admin-projects__star" aria-label="精选" />
            </Tooltip>
          )}
        </Space>
      ),
    },
    {
      title: '访问 / 下载',
      key: 'counts',
      width: 100,
      align: 'right',
      render: (_, project) => (
        <span title={`访问 ${project.viewCount} 次，下载 ${project.download_count} 次`}>
          {numberFormat.format(project.viewCount)} / {numberFormat.format(project.download_count)}
        </span>
      ),
    },
    {
      title: '大小',
      key: 'size',
      width: 100,
      align: 'right',
      render: (_, project) => (
        <div className="admin-projects__size">
          <span>{formatBytes(project.file_size)}</span>
          <Typography.Text type="secondary">{project.file_count} 个文件</Typography.Text>
        </div>
      ),
    },
    {
      title: '创建时间',
      key: 'created',
      width: 116,
      render: (_, project) => formatDate(project.created_at),
    },
    {
      title: '操作',
      key: 'actions',
      // Pinned beside the rows on a wide screen; on a phone it would cover them.
      fixed: wide ? 'right' : undefined,
      width: 176,
      render: (_, project) => <RowActions project={project} actions={actions} />,
    },
  ];

  const statusOptions = ADMIN_TABS.map((tab) => {
    const label = tab === 'all' ? '全部状态' : STATUS_LABELS[tab];
    return { value: tab, label: counts ? `${label}（${counts[tab]}）` : label };
  });

  return (
    <>
      <PageHeader
        title="项目管理"
        description="平台上的全部项目：状态、访问与下载统计；可下载文件、执行审核操作或删除项目。"
      />
      <Card>
        <ProjectListToolbar
          list={list}
          refresh={() => projects.refetch()}
          refreshing={projects.isFetching && !projects.isPending}
        >
          <Select<AdminTab>
            aria-label="按状态筛选"
            value={list.status}
            onChange={(status) => list.update({ status, page: 1 })}
            options={statusOptions}
            className="admin-projects__status"
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
          rowSelection={{ ...selection.rowSelection, fixed: wide }}
          failedTitle={messages.review.reviewListFailed}
          paging={list.paging(projects.data?.pagination.total_count ?? 0)}
          emptyText={list.search || list.status !== 'all' ? '没有找到匹配的项目' : '暂无项目'}
        />
      </Card>
      {actions.dialog}
    </>
  );
}
