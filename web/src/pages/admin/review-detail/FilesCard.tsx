import type { ProjectDto, ProjectFileDto } from '@sitehall/contracts';
import { formatBytes } from '@sitehall/contracts';
import { Card, Empty, Table, type TableProps, Typography } from 'antd';
import { DownloadOnlyNotice, FileTypeCell } from '../../../components/DownloadOnlyNotice';
import { useWideLayout } from '../../../hooks/useWideLayout';

/**
 * On a phone (under 768 px) 类型 and 大小 take what their content needs and the name the rest, so
 * the table fits the card: at 480 px wide it scrolled sideways on a 390-pixel phone, 大小 out of
 * sight.
 */
const fileColumns = (wide: boolean): TableProps<ProjectFileDto>['columns'] => [
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
    width: wide ? 150 : 84,
    render: (_type: string, file) => <FileTypeCell file={file} />,
  },
  {
    title: '大小',
    dataIndex: 'file_size',
    key: 'size',
    width: wide ? 120 : 80,
    align: 'right',
    sorter: (a, b) => a.file_size - b.file_size,
    render: formatBytes,
  },
  {
    title: 'MIME 类型',
    dataIndex: 'mime_type',
    key: 'mime',
    width: 200,
    responsive: ['md'],
    render: (mime: string) => <Typography.Text type="secondary">{mime}</Typography.Text>,
  },
];

/** The newest version's files (its versions: components/VersionsCard). */
export function FilesCard({ project }: { project: ProjectDto }) {
  const files = project.files ?? [];
  const wide = useWideLayout();
  return (
    <Card
      title={`文件列表（${files.length}）`}
      className="review-detail__card"
      extra={
        project.latest_version !== null && (
          <Typography.Text type="secondary">版本 v{project.latest_version}</Typography.Text>
        )
      }
    >
      <DownloadOnlyNotice files={files} className="review-detail__download-only" />
      <Table<ProjectFileDto>
        rowKey="file_name"
        size="small"
        columns={fileColumns(wide)}
        dataSource={files}
        scroll={wide ? { x: 480 } : undefined}
        pagination={
          files.length > 10
            ? { pageSize: 10, showSizeChanger: true, pageSizeOptions: [10, 20, 50, 100] }
            : false
        }
        locale={{ emptyText: <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description="没有文件" /> }}
      />
    </Card>
  );
}
