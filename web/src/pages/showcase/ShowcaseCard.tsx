import {
  CalendarOutlined,
  ExportOutlined,
  EyeOutlined,
  FileOutlined,
  StarFilled,
  UserOutlined,
} from '@ant-design/icons';
import { messages, type PublicProjectDto } from '@sitehall/contracts';
import { Button, Card, Tag, Tooltip, Typography } from 'antd';
import { formatDate } from '../../lib/format';
import { formatKB } from '../../lib/kilobytes';

const TONES = ['indigo', 'sky', 'emerald', 'amber', 'rose', 'violet'] as const;

/** A stable colour per project, so a card keeps its look between visits. */
function toneOf(id: number): string {
  return TONES[id % TONES.length] ?? 'indigo';
}

/** One site of the showcase: what it is, who made it, and a button that opens it in a new tab. */
export function ShowcaseCard({ project }: { project: PublicProjectDto }) {
  const initial = Array.from(project.name.trim())[0] ?? '站';
  return (
    <Card className="showcase-card" aria-label={project.name} role="article">
      <div className={`showcase-card__cover showcase-card__cover--${toneOf(project.id)}`} aria-hidden>
        <span className="showcase-card__initial">{initial}</span>
      </div>
      <div className="showcase-card__body">
        <div className="showcase-card__title-row">
          <Typography.Title level={3} className="showcase-card__title" ellipsis={{ tooltip: project.name }}>
            {project.name}
          </Typography.Title>
          {project.featured && (
            <Tag color="gold" icon={<StarFilled aria-hidden />} className="showcase-card__featured">
              精选
            </Tag>
          )}
        </div>
        <Typography.Paragraph
          type="secondary"
          className="showcase-card__description"
          ellipsis={{ rows: 2, tooltip: project.description || undefined }}
        >
          {project.description || messages.project.noDescription}
        </Typography.Paragraph>
        <ul className="showcase-card__meta">
          <li>
            <CalendarOutlined aria-hidden />
            <span>发布于 {formatDate(project.published_at)}</span>
          </li>
          <li>
            <FileOutlined aria-hidden />
            <span>
              {project.file_count} 个文件 · {formatKB(project.file_size)}
            </span>
          </li>
          <li>
            <UserOutlined aria-hidden />
            <span>作者 {project.owner.username}</span>
          </li>
          <li>
            <EyeOutlined aria-hidden />
            <span>{project.viewCount} 次访问</span>
          </li>
        </ul>
      </div>
      <div className="showcase-card__footer">
        {project.access_url ? (
          <Button
            type="primary"
            block
            icon={<ExportOutlined aria-hidden />}
            href={project.access_url}
            target="_blank"
            rel="noopener noreferrer"
            aria-label={`访问 ${project.name}`}
          >
            访问
          </Button>
        ) : (
          <Tooltip title="该项目暂时无法访问">
            <Button block disabled icon={<ExportOutlined aria-hidden />} aria-label={`访问 ${project.name}`}>
              访问
            </Button>
          </Tooltip>
        )}
      </div>
    </Card>
  );
}
