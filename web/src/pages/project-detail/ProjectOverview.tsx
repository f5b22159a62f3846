/** Basic and file information of a project, with the notices its status calls for. */
import { CloudUploadOutlined, StarFilled, WarningOutlined } from '@ant-design/icons';
import { messages, type ProjectDto, siteUrl } from '@sitehall/contracts';
import { Alert, Button, Card, Descriptions, Tag, Typography } from 'antd';
import { usePublicConfig } from '../../api/config';
import { FileSize } from '../../components/FileSize';
import { ProjectPicture } from '../../components/ProjectPicture';
import { StatusTag } from '../../components/StatusTag';
import { formatDateTime } from '../../lib/format';
import { uploadTypeLabel } from '../../lib/project-labels';
import { liveVersionNote } from '../../lib/project-status';
import { absoluteSiteUrl } from '../../lib/site-address';

/**
 * Where a project that was never live will be published: the address its site name (or number)
 * gives, as visitors will open it (an outside review's owner saw 专属地址 and no address).
 */
function FutureAddress({ project }: { project: ProjectDto }) {
  const config = usePublicConfig().data;
  const address = config
    ? absoluteSiteUrl(
        siteUrl(
          { id: project.id, name: project.site_name },
          {
            ...(config.sites_origin ? { sitesOrigin: config.sites_origin } : {}),
            sitesSubdomains: config.sites_subdomains,
          },
        ),
        config.sites_port,
      )
    : null;
  return (
    <>
      管理员审核通过后，项目会发布到
      {address ? <Typography.Text code>{address}</Typography.Text> : '专属地址'}
      。在此之前，你可以生成临时预览链接查看效果。
    </>
  );
}

export function StatusNotice({ project, onNewVersion }: { project: ProjectDto; onNewVersion: () => void }) {
  if (project.status === 'taken_down') {
    return (
      <Alert
        className="detail-notice"
        type="error"
        showIcon
        title="站点已被管理员下线"
        description={
          <div className="detail-notice__body">
            <div>
              <Typography.Text type="secondary">下线原因：</Typography.Text>
              <span data-testid="takedown-reason">{project.takedownReason || '管理员未填写原因'}</span>
            </div>
            <Typography.Text type="secondary">
              站点已停止访问并从展厅移除。请根据原因修改后上传新版本，审核通过后会重新上线。
            </Typography.Text>
          </div>
        }
        action={
          <Button size="small" icon={<CloudUploadOutlined aria-hidden />} onClick={onNewVersion}>
            上传新版本
          </Button>
        }
      />
    );
  }
  if (project.status === 'rejected') {
    return (
      <Alert
        className="detail-notice"
        type="error"
        showIcon
        title="审核未通过"
        description={
          <div className="detail-notice__body">
            <div>
              <Typography.Text type="secondary">拒绝原因：</Typography.Text>
              <span data-testid="rejection-reason">{project.rejectionReason || '管理员未填写原因'}</span>
            </div>
            <Typography.Text type="secondary">
              {project.is_live
                ? `线上版本 v${project.live_version} 仍在正常访问。修改后可上传新版本重新提交审核。`
                : '请根据原因修改后上传新版本，项目将重新进入审核。'}
            </Typography.Text>
          </div>
        }
        action={
          <Button size="small" icon={<CloudUploadOutlined aria-hidden />} onClick={onNewVersion}>
            上传新版本
          </Button>
        }
      />
    );
  }
  if (project.status === 'pending') {
    return (
      <Alert
        className="detail-notice"
        type="info"
        showIcon
        title={project.is_live ? `新版本 v${project.latest_version} 正在等待审核` : '项目正在等待审核'}
        description={
          project.is_live ? (
            `审核通过前，线上版本 v${project.live_version} 继续提供访问；通过后自动切换到新版本。`
          ) : (
            <FutureAddress project={project} />
          )
        }
      />
    );
  }
  // After a rollback the live version is older than the newest one, which the file details show.
  if (
    project.is_live &&
    project.live_version !== null &&
    project.latest_version !== null &&
    project.latest_version > project.live_version
  ) {
    return (
      <Alert
        className="detail-notice"
        type="info"
        showIcon
        title={`线上运行的是较早的版本 v${project.live_version}`}
        description={`最新的 v${project.latest_version} 已通过审核但不在线上；下方的文件信息和文件列表是 v${project.latest_version} 的。可在版本记录中切换线上版本。`}
      />
    );
  }
  return null;
}

export function BasicInfoCard({ project }: { project: ProjectDto }) {
  const note = liveVersionNote(project);
  return (
    <Card title="基本信息" className="detail-card">
      <ProjectPicture project={project} width={320} />
      <Descriptions
        column={{ xs: 1, sm: 2 }}
        items={[
          { key: 'name', label: '项目名称', children: project.name },
          {
            key: 'id',
            label: '项目ID',
            children: <Typography.Text copyable={{ text: String(project.id) }}>{project.id}</Typography.Text>,
          },
          {
            key: 'status',
            label: '状态',
            span: 'filled',
            children: (
              <span className="detail-status">
                <StatusTag status={project.status} />
                {project.featured && (
                  <Tag color="gold" icon={<StarFilled aria-hidden />}>
                    精选
                  </Tag>
                )}
                {note && <Tag color="green">{note}</Tag>}
              </span>
            ),
          },
          {
            key: 'description',
            label: '项目描述',
            span: 'filled',
            children: project.description ? (
              <span className="detail-description">{project.description}</span>
            ) : (
              <Typography.Text type="secondary">{messages.project.noDescription}</Typography.Text>
            ),
          },
        ]}
      />
    </Card>
  );
}

export function FileInfoCard({ project }: { project: ProjectDto }) {
  const updatedDiffers = project.updated_at && project.updated_at !== project.created_at;
  return (
    <Card title="文件信息" className="detail-card">
      <Descriptions
        column={{ xs: 1, sm: 2 }}
        items={[
          { key: 'size', label: '文件大小', children: <FileSize bytes={project.file_size} /> },
          { key: 'count', label: '文件数量', children: `${project.file_count} 个` },
          { key: 'type', label: '上传类型', children: uploadTypeLabel(project) },
          {
            key: 'entry',
            label: '入口文件',
            children: project.entry_file ? (
              <Typography.Text code>{project.entry_file}</Typography.Text>
            ) : (
              <Typography.Text type="warning">
                <WarningOutlined aria-hidden /> {messages.project.entryNotSet}
              </Typography.Text>
            ),
          },
          { key: 'created', label: '上传时间', children: formatDateTime(project.created_at) },
          ...(updatedDiffers
            ? [{ key: 'updated', label: '更新时间', children: formatDateTime(project.updated_at) }]
            : []),
          {
            key: 'visibility',
            label: '可见性',
            children: project.is_public ? <Tag color="blue">公开</Tag> : <Tag>私有</Tag>,
          },
        ]}
      />
    </Card>
  );
}
