import type { DeploymentDto, DeploymentStatus, ProjectDto, ProjectFileDto } from '@sitehall/contracts';
import { Card, Empty, Table, type TableProps, Tabs, Tag, Typography } from 'antd';
import { formatDateTime } from '../../../lib/format';
import { formatKB } from '../../../lib/kilobytes';

const DEPLOYMENT_STATUS: Record<DeploymentStatus, { label: string; color: string }> = {
  pending: { label: '待审核', color: 'gold' },
  approved: { label: '已通过', color: 'green' },
  rejected: { label: '已拒绝', color: 'red' },
  superseded: { label: '已被新版本替代', color: 'default' },
};

const fileColumns: TableProps<ProjectFileDto>['columns'] = [
  {
    title: '文件名',
    dataIndex: 'file_name',
    key: 'name',
    sorter: (a, b) => a.file_name.localeCompare(b.file_name),
    render: (name: string) => <Typography.Text className="file-name">{name}</Typography.Text>,
  },
  {
    title: '类型',
    dataIndex: 'file_type',
    key: 'type',
    width: 90,
    render: (type: string) => (type ? <Tag>{type}</Tag> : '—'),
  },
  {
    title: '大小',
    dataIndex: 'file_size',
    key: 'size',
    width: 120,
    align: 'right',
    sorter: (a, b) => a.file_size - b.file_size,
    render: formatKB,
  },
  {
    title: 'MIME 类型',
    dataIndex: 'mime_type',
    key: 'mime',
    width: 200,
    render: (mime: string) => <Typography.Text type="secondary">{mime}</Typography.Text>,
  },
];

const deploymentColumns: TableProps<DeploymentDto>['columns'] = [
  {
    title: '版本',
    dataIndex: 'version',
    key: 'version',
    width: 90,
    render: (version: number, d) => (
      <span className="deployment-version">
        v{version}
        {d.is_live && <Tag color="success">线上</Tag>}
      </span>
    ),
  },
  {
    title: '状态',
    dataIndex: 'status',
    key: 'status',
    width: 130,
    render: (status: DeploymentStatus) => (
      <Tag color={DEPLOYMENT_STATUS[status].color}>{DEPLOYMENT_STATUS[status].label}</Tag>
    ),
  },
  {
    title: '文件',
    key: 'files',
    width: 150,
    render: (_, d) => `${d.file_count} 个 · ${formatKB(d.file_size)}`,
  },
  {
    title: '上传时间',
    dataIndex: 'created_at',
    key: 'created',
    width: 150,
    render: (v: string) => formatDateTime(v),
  },
  {
    title: '审核',
    key: 'review',
    render: (_, d) =>
      d.reviewed_at ? (
        <span>
          {d.reviewed_by ?? '—'} · {formatDateTime(d.reviewed_at)}
          {d.review_comment && (
            <Typography.Paragraph type="secondary" className="deployment-comment">
              {d.review_comment}
            </Typography.Paragraph>
          )}
        </span>
      ) : (
        <Typography.Text type="secondary">未审核</Typography.Text>
      ),
  },
];

/** The newest version's files, and every version uploaded so far. */
export function FilesCard({ project }: { project: ProjectDto }) {
  const files = project.files ?? [];
  const deployments = [...(project.deployments ?? [])].sort((a, b) => b.version - a.version);
  return (
    <Card className="review-detail__card review-detail__files">
      <Tabs
        items={[
          {
            key: 'files',
            label: `文件列表（${files.length}）`,
            children: (
              <Table<ProjectFileDto>
                rowKey="file_name"
                size="small"
                columns={fileColumns}
                dataSource={files}
                scroll={{ x: 600 }}
                pagination={
                  files.length > 10
                    ? { pageSize: 10, showSizeChanger: true, pageSizeOptions: [10, 20, 50, 100] }
                    : false
                }
                locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description="没有文件" /> }}
              />
            ),
          },
          {
            key: 'versions',
            label: `版本记录（${deployments.length}）`,
            children: (
              <Table<DeploymentDto>
                rowKey="id"
                size="small"
                columns={deploymentColumns}
                dataSource={deployments}
                scroll={{ x: 640 }}
                pagination={deployments.length > 10 ? { pageSize: 10 } : false}
                locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description="暂无版本" /> }}
              />
            ),
          },
        ]}
      />
    </Card>
  );
}
