import { DownloadOutlined, ExportOutlined, EyeOutlined, WarningOutlined } from '@ant-design/icons';
import { format, formatBytes, messages, type PreviewTokenDto, type ProjectDto } from '@sitehall/contracts';
import {
  App,
  Button,
  Card,
  Descriptions,
  type DescriptionsProps,
  Space,
  Tag,
  Tooltip,
  Typography,
} from 'antd';
import { useState } from 'react';
import { useCreatePreview, useDownloadProject, useRerender } from '../../../api/admin';
import { errorMessage } from '../../../api/client';
import { AdminStatusTag } from '../../../components/admin/AdminStatusTag';
import { newestDeployment, versionSummary } from '../../../components/admin/projectFacts';
import { ProjectPicture } from '../../../components/ProjectPicture';
import { useSiteAddress } from '../../../hooks/useSiteAddress';
import { formatDateTime } from '../../../lib/format';
import { uploadSourceLabel } from '../../../lib/project-labels';
import { ReviewPreview } from './ReviewPreview';

export function ProjectInfoCard({ project }: { project: ProjectDto }) {
  const { message } = App.useApp();
  const createPreview = useCreatePreview();
  const download = useDownloadProject();
  const rerender = useRerender();
  const siteAddress = useSiteAddress();
  const [preview, setPreview] = useState<PreviewTokenDto | null>(null);

  const openPreview = async () => {
    try {
      setPreview(await createPreview.mutateAsync(project.id));
    } catch (error) {
      message.error(`${messages.project.previewFailed}：${errorMessage(error)}`);
    }
  };

  // The version under review, not the live one: what the reviewer is deciding about.
  const newest = newestDeployment(project);
  const startDownload = async () => {
    try {
      const filename = await download.mutateAsync({ id: project.id, deploymentId: newest?.id });
      message.success(`已开始下载 ${filename}`);
    } catch (error) {
      message.error(`下载失败：${errorMessage(error)}`);
    }
  };

  const items: DescriptionsProps['items'] = [
    { key: 'name', label: '项目名称', children: project.name },
    { key: 'id', label: '项目ID', children: project.id },
    { key: 'owner', label: '所有者', children: project.owner.username },
    {
      key: 'status',
      label: '状态',
      children: (
        <Space size={6} wrap>
          <AdminStatusTag status={project.status} />
          {project.is_live ? <Tag color="success">在线</Tag> : <Tag>未上线</Tag>}
          {project.featured && <Tag color="gold">精选</Tag>}
        </Space>
      ),
    },
    { key: 'version', label: '版本', children: versionSummary(project) },
    { key: 'public', label: '展厅可见', children: project.is_public ? '公开' : '私有（不在展厅列出）' },
    {
      key: 'description',
      label: '描述',
      span: 'filled',
      children: project.description || (
        <Typography.Text type="secondary">{messages.project.noDescription}</Typography.Text>
      ),
    },
    { key: 'size', label: '文件大小', children: formatBytes(project.file_size) },
    { key: 'count', label: '文件数量', children: `${project.file_count} 个` },
    { key: 'type', label: '上传方式', children: uploadSourceLabel(project) },
    {
      key: 'entry',
      label: '入口文件',
      children: project.entry_file ? (
        <Typography.Text code>{project.entry_file}</Typography.Text>
      ) : (
        <Tooltip title={messages.review.contentCheck.missingEntry}>
          <Typography.Text type="warning">
            <WarningOutlined aria-hidden /> {messages.project.entryNotSet}
          </Typography.Text>
        </Tooltip>
      ),
    },
    { key: 'created', label: '上传时间', children: formatDateTime(project.created_at) },
    { key: 'updated', label: '更新时间', children: formatDateTime(project.updated_at) },
    { key: 'approved', label: '通过时间', children: formatDateTime(project.approved_at) },
    { key: 'reviewer', label: '审核人', children: project.approved_by ?? '—' },
    ...(project.published_at
      ? [{ key: 'published', label: '发布时间', children: formatDateTime(project.published_at) }]
      : []),
    {
      key: 'url',
      label: '访问地址',
      span: 'filled' as const,
      children: project.access_url ? (
        <Typography.Link href={siteAddress(project.access_url)} target="_blank" rel="noopener noreferrer">
          {siteAddress(project.access_url)} <ExportOutlined aria-hidden />
        </Typography.Link>
      ) : (
        <Typography.Text type="secondary">未上线</Typography.Text>
      ),
    },
  ];

  return (
    <Card
      title="项目信息"
      className="review-detail__card"
      extra={
        <Space wrap>
          <Button icon={<EyeOutlined aria-hidden />} loading={createPreview.isPending} onClick={openPreview}>
            {preview ? '重新生成预览' : '预览'}
          </Button>
          <Button
            loading={rerender.isPending}
            onClick={async () => {
              try {
                const { queued } = await rerender.mutateAsync(project.id);
                message.success(format(messages.render.queued, { n: queued }));
              } catch (error) {
                message.error(errorMessage(error));
              }
            }}
          >
            重新截图
          </Button>
          <Tooltip title={newest ? `下载 v${newest.version} 的文件（zip）` : undefined}>
            <Button
              icon={<DownloadOutlined aria-hidden />}
              loading={download.isPending}
              onClick={startDownload}
            >
              下载
            </Button>
          </Tooltip>
        </Space>
      }
    >
      <ProjectPicture project={project} width={320} />
      <Descriptions items={items} column={{ xs: 1, sm: 2 }} size="small" className="review-detail__facts" />
      {preview && <ReviewPreview preview={preview} onExpire={() => setPreview(null)} />}
    </Card>
  );
}
