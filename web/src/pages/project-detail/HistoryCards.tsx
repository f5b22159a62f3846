/** The file list of the newest version, the versions with rollback, and the review history. */
import { HistoryOutlined, RollbackOutlined } from '@ant-design/icons';
import {
  type DeploymentDto,
  formatBytes,
  messages,
  type ProjectDto,
  type ProjectFileDto,
  type ReviewCommentDto,
} from '@sitehall/contracts';
import { App, Button, Card, Empty, Table, type TableProps, Tag, Timeline, Typography } from 'antd';
import { useState } from 'react';
import { errorMessage } from '../../api/client';
import { useRollbackProject } from '../../api/projects';
import { FileSize } from '../../components/FileSize';
import { formatDateTime } from '../../lib/format';
import { DEPLOYMENT_STATUS_LABELS, reviewActionColor, reviewActionLabel, uploadTypeLabel } from './labels';

const FILE_PAGE_SIZE = 10;

const fileColumns: TableProps<ProjectFileDto>['columns'] = [
  {
    title: '文件名',
    dataIndex: 'file_name',
    key: 'file_name',
    ellipsis: true,
    render: (name: string) => (
      <Typography.Text className="detail-file-name" title={name}>
        {name}
      </Typography.Text>
    ),
  },
  {
    title: '类型',
    dataIndex: 'file_type',
    key: 'file_type',
    width: 90,
    render: (type: string) => (type ? <Tag>{type}</Tag> : '—'),
  },
  {
    title: '大小',
    dataIndex: 'file_size',
    key: 'file_size',
    width: 110,
    align: 'right',
    sorter: (a, b) => a.file_size - b.file_size,
    render: (size: number) => <FileSize bytes={size} />,
  },
  {
    title: 'MIME 类型',
    dataIndex: 'mime_type',
    key: 'mime_type',
    width: 200,
    ellipsis: true,
    render: (mime: string) => <Typography.Text type="secondary">{mime || '—'}</Typography.Text>,
  },
];

export function FilesCard({ project }: { project: ProjectDto }) {
  const files = project.files ?? [];
  const [page, setPage] = useState(1);
  return (
    <Card
      title="文件列表"
      className="detail-card"
      extra={
        project.latest_version !== null && (
          <Typography.Text type="secondary">
            版本 v{project.latest_version} · 共 {files.length} 个文件
          </Typography.Text>
        )
      }
    >
      <Table<ProjectFileDto>
        rowKey="file_name"
        size="middle"
        columns={fileColumns}
        dataSource={files}
        locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description="暂无文件" /> }}
        pagination={
          files.length > FILE_PAGE_SIZE
            ? {
                current: page,
                pageSize: FILE_PAGE_SIZE,
                onChange: setPage,
                showSizeChanger: false,
                showTotal: (total) => `共 ${total} 个文件`,
              }
            : false
        }
        scroll={{ x: 480 }}
      />
    </Card>
  );
}

function canRollBack(project: ProjectDto, version: DeploymentDto): boolean {
  return project.is_live && version.status === 'approved' && !version.is_live;
}

export function VersionsCard({ project }: { project: ProjectDto }) {
  const { message, modal } = App.useApp();
  const rollback = useRollbackProject(project.id);
  const versions = [...(project.deployments ?? [])].sort((a, b) => b.version - a.version);

  const confirmRollback = (version: DeploymentDto) =>
    modal.confirm({
      title: `回滚到版本 v${version.version}？`,
      content: '线上站点会立即切换到该版本的文件，之后仍可再切换回来。',
      okText: '回滚',
      cancelText: '取消',
      onOk: async () => {
        try {
          await rollback.mutateAsync(version.id);
          message.success(messages.review.rollbackDone);
        } catch (error) {
          message.error(errorMessage(error));
        }
      },
    });

  const columns: TableProps<DeploymentDto>['columns'] = [
    {
      title: '版本',
      key: 'version',
      width: 130,
      render: (_, v) => (
        <span className="detail-version">
          <strong>v{v.version}</strong>
          {v.is_live && <Tag color="green">线上</Tag>}
        </span>
      ),
    },
    {
      title: '状态',
      dataIndex: 'status',
      key: 'status',
      width: 130,
      render: (status: DeploymentDto['status']) => (
        <Tag color={DEPLOYMENT_STATUS_LABELS[status].color}>{DEPLOYMENT_STATUS_LABELS[status].label}</Tag>
      ),
    },
    {
      title: '文件',
      key: 'files',
      render: (_, v) => (
        <span className="detail-version__files">
          {v.file_count} 个 · {formatBytes(v.file_size)} · {uploadTypeLabel(v.upload_type)}
          {v.review_comment && (
            <Typography.Text type="secondary" className="detail-version__comment">
              审核意见：{v.review_comment}
            </Typography.Text>
          )}
        </span>
      ),
    },
    {
      title: '上传时间',
      dataIndex: 'created_at',
      key: 'created_at',
      width: 150,
      responsive: ['sm'],
      render: (at: string) => formatDateTime(at),
    },
    {
      title: '操作',
      key: 'actions',
      width: 96,
      render: (_, v) =>
        canRollBack(project, v) ? (
          <Button
            size="small"
            icon={<RollbackOutlined aria-hidden />}
            loading={rollback.isPending && rollback.variables === v.id}
            onClick={() => confirmRollback(v)}
          >
            回滚
          </Button>
        ) : null,
    },
  ];

  return (
    <Card title="版本记录" className="detail-card">
      <Table<DeploymentDto>
        rowKey="id"
        size="middle"
        columns={columns}
        dataSource={versions}
        pagination={versions.length > 10 ? { pageSize: 10, showSizeChanger: false } : false}
        locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description="暂无版本" /> }}
        scroll={{ x: 560 }}
      />
    </Card>
  );
}

export function ReviewHistoryCard({ comments }: { comments: ReviewCommentDto[] }) {
  const ordered = [...comments].sort((a, b) => b.created_at.localeCompare(a.created_at));
  return (
    <Card title="审核记录" className="detail-card">
      {ordered.length === 0 ? (
        <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description="暂无审核记录，管理员处理后会显示在这里" />
      ) : (
        <Timeline
          className="detail-history"
          items={ordered.map((c) => ({
            key: c.id,
            color: reviewActionColor(c.action),
            icon: c.action === 'rollback' ? <HistoryOutlined aria-hidden /> : undefined,
            content: (
              <div className="detail-history__item">
                <div className="detail-history__head">
                  <Tag color={reviewActionColor(c.action)}>{reviewActionLabel(c.action)}</Tag>
                  {c.deployment_version !== null && (
                    <Typography.Text type="secondary">版本 v{c.deployment_version}</Typography.Text>
                  )}
                </div>
                {c.comment && <div className="detail-history__comment">{c.comment}</div>}
                <Typography.Text type="secondary" className="detail-history__meta">
                  {c.reviewer ?? '系统'} · {formatDateTime(c.created_at)}
                </Typography.Text>
              </div>
            ),
          }))}
        />
      )}
    </Card>
  );
}
