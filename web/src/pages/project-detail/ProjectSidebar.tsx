/** The detail page's side column: quick actions, access and preview, statistics. */
import {
  CloudUploadOutlined,
  DeleteOutlined,
  DownloadOutlined,
  EditOutlined,
  GlobalOutlined,
} from '@ant-design/icons';
import { messages, type ProjectDto } from '@sitehall/contracts';
import { App, Button, Card, Descriptions, Statistic } from 'antd';
import { useNavigate } from 'react-router-dom';
import { errorMessage } from '../../api/client';
import { useDownloadProject } from '../../api/projects';
import { PreviewPanel } from '../../components/PreviewPanel';
import { useConfirmDeleteProject } from '../../hooks/useConfirmDeleteProject';
import { useSiteAddress } from '../../hooks/useSiteAddress';
import { formatDateTime } from '../../lib/format';

interface ActionsCardProps {
  project: ProjectDto;
  /** Where a deleted project leaves the page for: the list it was opened from. */
  backTo?: string;
  onEdit: () => void;
  onNewVersion: () => void;
}

export function ActionsCard({ project, backTo = '/projects', onEdit, onNewVersion }: ActionsCardProps) {
  const { message } = App.useApp();
  const navigate = useNavigate();
  const download = useDownloadProject();
  const siteAddress = useSiteAddress();

  const startDownload = async () => {
    try {
      await download.mutateAsync({ id: project.id });
    } catch (error) {
      message.error(errorMessage(error));
    }
  };

  const { confirmDelete, deleting } = useConfirmDeleteProject({
    failure: () => messages.project.deleteFailedDetail,
    onDeleted: () => navigate(backTo, { replace: true }),
  });

  return (
    <Card title="快捷操作" className="detail-card">
      <div className="detail-actions">
        {project.access_url && (
          <Button
            type="primary"
            block
            icon={<GlobalOutlined aria-hidden />}
            href={siteAddress(project.access_url)}
            target="_blank"
            rel="noopener noreferrer"
          >
            访问项目
          </Button>
        )}
        <Button
          block
          icon={<DownloadOutlined aria-hidden />}
          loading={download.isPending}
          onClick={startDownload}
        >
          {download.isPending ? '正在准备下载...' : '下载'}
        </Button>
        <div className="detail-actions__pair">
          <Button icon={<EditOutlined aria-hidden />} onClick={onEdit}>
            编辑
          </Button>
          <Button icon={<CloudUploadOutlined aria-hidden />} onClick={onNewVersion}>
            上传新版本
          </Button>
        </div>
        <Button
          block
          danger
          icon={<DeleteOutlined aria-hidden />}
          loading={deleting}
          onClick={() => confirmDelete(project)}
        >
          删除项目
        </Button>
      </div>
    </Card>
  );
}

export function AccessCard({ project }: { project: ProjectDto }) {
  return (
    <Card title={project.access_url ? '访问地址' : '预览'} className="detail-card">
      <PreviewPanel project={project} />
    </Card>
  );
}

export function StatsCard({ project }: { project: ProjectDto }) {
  // The approval shown is the one the site is live by (spec: review time "when published"): after
  // a takedown the old approval would read as the current decision.
  const live = project.access_url !== null && project.approved_at !== null;
  return (
    <Card title="统计信息" className="detail-card">
      <div className="detail-stats">
        <Statistic title="访问量" value={project.viewCount} />
        <Statistic title="下载次数" value={project.download_count} />
      </div>
      <Descriptions
        column={1}
        size="small"
        className="detail-stats__times"
        items={[
          { key: 'created', label: '创建时间', children: formatDateTime(project.created_at) },
          ...(live
            ? [{ key: 'approved', label: '审核时间', children: formatDateTime(project.approved_at) }]
            : []),
          { key: 'reviewer', label: '审核人', children: (live && project.approved_by) || '—' },
        ]}
      />
    </Card>
  );
}
