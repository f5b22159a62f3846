import { DeleteOutlined, FileTextOutlined, StarFilled } from '@ant-design/icons';
import { format, messages, type ProjectDto } from '@sitehall/contracts';
import { Button, Card, Tag, Typography } from 'antd';
import { Link } from 'react-router-dom';
import { errorMessage } from '../../api/client';
import { FileSize } from '../../components/FileSize';
import { LinkButton } from '../../components/LinkButton';
import { PreviewPanel } from '../../components/PreviewPanel';
import { ProjectPicture } from '../../components/ProjectPicture';
import { StatusTag } from '../../components/StatusTag';
import { useConfirmDeleteProject } from '../../hooks/useConfirmDeleteProject';
import { formatDateTime } from '../../lib/format';
import { newVersionNote } from '../../lib/project-status';

/** One project in my projects: facts, how to see it, and what can be done with it. */
export function ProjectCard({ project }: { project: ProjectDto }) {
  const note = newVersionNote(project);
  const { confirmDelete, deleting } = useConfirmDeleteProject({
    failure: (error) => format(messages.project.deleteFailedList, { message: errorMessage(error) }),
  });

  return (
    <Card className="project-card" aria-label={project.name} role="article">
      <div className="project-card__head">
        <Link to={`/projects/${project.id}`} className="project-card__name" title={project.name}>
          {project.name}
        </Link>
        <div className="project-card__tags">
          {project.featured && (
            <Tag color="gold" icon={<StarFilled aria-hidden />} className="project-card__tag">
              精选
            </Tag>
          )}
          <StatusTag status={project.status} />
        </div>
      </div>
      {/* Named after the project (its picture may be only a letter); the keyboard uses the name's link. */}
      <Link
        to={`/projects/${project.id}`}
        aria-label={project.name}
        tabIndex={-1}
        className="project-card__picture"
      >
        <ProjectPicture project={project} width={320} />
      </Link>
      {note && (
        <Typography.Text type="secondary" className="project-card__note">
          {note}
        </Typography.Text>
      )}
      <Typography.Paragraph
        type="secondary"
        ellipsis={{ rows: 2, tooltip: project.description || undefined }}
        className="project-card__description"
      >
        {project.description || messages.project.noDescription}
      </Typography.Paragraph>
      <dl className="project-card__facts">
        <div>
          <dt>文件大小</dt>
          <dd>
            <FileSize bytes={project.file_size} />
            <span className="project-card__count">
              <FileTextOutlined aria-hidden /> {project.file_count} 个文件
            </span>
          </dd>
        </div>
        <div>
          <dt>上传时间</dt>
          <dd>{formatDateTime(project.uploaded_at)}</dd>
        </div>
      </dl>
      <div className="project-card__access">
        <PreviewPanel project={project} compact />
      </div>
      <div className="project-card__actions">
        <LinkButton to={`/projects/${project.id}`} type="primary" ghost>
          详情
        </LinkButton>
        <Button
          danger
          icon={<DeleteOutlined aria-hidden />}
          loading={deleting}
          onClick={() => confirmDelete(project)}
        >
          删除
        </Button>
      </div>
    </Card>
  );
}
