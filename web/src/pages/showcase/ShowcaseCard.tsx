import {
  CalendarOutlined,
  ExportOutlined,
  EyeOutlined,
  FileOutlined,
  StarFilled,
  UserOutlined,
} from '@ant-design/icons';
import { formatBytes, messages, type PublicProjectDto } from '@sitehall/contracts';
import { Button, Tag } from 'antd';
import { useState } from 'react';
import { formatDate } from '../../lib/format';

const TONES = ['indigo', 'sky', 'emerald', 'amber', 'rose', 'violet'] as const;

/** A stable colour per project, so a card keeps its look between visits. */
function toneOf(id: number): string {
  return TONES[id % TONES.length] ?? 'indigo';
}

/** One site of the showcase: what it is, who made it, and a button that opens it in a new tab. */
export function ShowcaseCard({ project }: { project: PublicProjectDto }) {
  const initial = Array.from(project.name.trim())[0] ?? '站';
  // The rendered picture (docs/render.md), with the letter where there is none or it fails to load.
  const [broken, setBroken] = useState(false);
  const picture = project.thumbnail_url && !broken ? project.thumbnail_url : null;
  return (
    // Plain markup with CSS ellipsis and native titles: antd's Card and Typography would add a tenth
    // of the showcase's first load (docs/benchmarks.md, web app load).
    <article className="showcase-card sh-panel" aria-label={project.name}>
      <div className={`showcase-card__cover showcase-card__cover--${toneOf(project.id)}`} aria-hidden>
        {picture ? (
          <img
            className="showcase-card__picture"
            src={picture}
            alt=""
            loading="lazy"
            decoding="async"
            width={640}
            height={400}
            onError={() => setBroken(true)}
          />
        ) : (
          <span className="showcase-card__initial">{initial}</span>
        )}
      </div>
      <div className="showcase-card__body">
        <div className="showcase-card__title-row">
          <h3 className="showcase-card__title" title={project.name}>
            {project.name}
          </h3>
          {project.featured && (
            <Tag color="gold" icon={<StarFilled aria-hidden />} className="showcase-card__featured">
              精选
            </Tag>
          )}
        </div>
        <p className="showcase-card__description" title={project.description || undefined}>
          {project.description || messages.project.noDescription}
        </p>
        <ul className="showcase-card__meta">
          <li>
            <CalendarOutlined aria-hidden />
            <span>发布于 {formatDate(project.published_at)}</span>
          </li>
          <li>
            <FileOutlined aria-hidden />
            <span>
              {project.file_count} 个文件 · {formatBytes(project.file_size)}
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
          <span className="showcase-card__unavailable" title="该项目暂时无法访问">
            <Button block disabled icon={<ExportOutlined aria-hidden />} aria-label={`访问 ${project.name}`}>
              访问
            </Button>
          </span>
        )}
      </div>
    </article>
  );
}
