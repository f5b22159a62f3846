/** The file list of the newest version and the review history (the versions: components/VersionsCard). */
import { HistoryOutlined } from '@ant-design/icons';
import type { ProjectDto, ProjectFileDto, ReviewCommentDto } from '@sitehall/contracts';
import { Card, Empty, Table, type TableProps, Tag, Timeline, Typography } from 'antd';
import { useState } from 'react';
import { DownloadOnlyNotice, FileTypeCell } from '../../components/DownloadOnlyNotice';
import { FileSize } from '../../components/FileSize';
import { useWideLayout } from '../../hooks/useWideLayout';
import { formatDateTime } from '../../lib/format';
import { reviewActionColor, reviewActionLabel } from '../../lib/project-labels';

const FILE_PAGE_SIZE = 10;

/**
 * On a phone (under 768 px) 类型 and 大小 take what their content needs and the name the rest, so
 * the table fits the card: at 480 px wide it scrolled sideways on a 390-pixel phone, 大小 out of
 * sight.
 */
const fileColumns = (wide: boolean): TableProps<ProjectFileDto>['columns'] => [
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
    width: wide ? 150 : 84,
    render: (_type: string, file) => <FileTypeCell file={file} />,
  },
  {
    title: '大小',
    dataIndex: 'file_size',
    key: 'file_size',
    width: wide ? 110 : 80,
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
    // Not on a phone: with it, the fixed columns left the name 20 px (one letter and a dot).
    responsive: ['md'],
    render: (mime: string) => <Typography.Text type="secondary">{mime || '—'}</Typography.Text>,
  },
];

export function FilesCard({ project }: { project: ProjectDto }) {
  const files = project.files ?? [];
  const wide = useWideLayout();
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
      <DownloadOnlyNotice files={files} className="detail-download-only" />
      <Table<ProjectFileDto>
        rowKey="file_name"
        size="middle"
        columns={fileColumns(wide)}
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
        scroll={wide ? { x: 480 } : undefined}
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
