import {
  CalendarOutlined,
  ExportOutlined,
  EyeOutlined,
  FileOutlined,
  StarFilled,
  UserOutlined,
} from '@ant-design/icons';
import { formatBytes, messages, type PublicProjectDto } from '@sitehall/contracts';
import { useState } from 'react';
import { useSiteAddress } from '../../hooks/useSiteAddress';
import { formatDate } from '../../lib/format';

const TONES = ['indigo', 'sky', 'emerald', 'amber', 'rose', 'violet'] as const;

/** A stable colour per project, so a card keeps its look between visits. */
function toneOf(id: number): string {
  return TONES[id % TONES.length] ?? 'indigo';
}

/** One site of the showcase: what it is, who made it, and a button that opens it in a new tab. */
export function ShowcaseCard({ project }: { project: PublicProjectDto }) {
  const initial = Array.from(project.name.trim())[0] ?? '站';
  const siteAddress = useSiteAddress();
  // The rendered picture (docs/render.md), with the letter where there is none or it fails to load.
  const [broken, setBroken] = useState(false);
  const picture = project.thumbnail_url && !broken ? project.thumbnail_url : null;
  return (
    // Plain markup and CSS in antd's look (tag, buttons: styles.css's sh-btn): the card shows before
    // antd has loaded, which the showcase's first view does not wait for (docs/benchmarks.md, web app load).
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
            <span className="showcase-card__featured">
              <StarFilled aria-hidden />
              <span>精选</span>
            </span>
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
          <a
            className="sh-btn sh-btn--primary sh-btn--block"
            href={siteAddress(project.access_url)}
            target="_blank"
            rel="noopener noreferrer"
            aria-label={`访问 ${project.name}`}
          >
            <ExportOutlined aria-hidden />
            <span>访问</span>
          </a>
        ) : (
          <span className="showcase-card__unavailable" title="该项目暂时无法访问">
            <button
              type="button"
              className="sh-btn sh-btn--block"
              disabled
              aria-label={`访问 ${project.name}`}
            >
              <ExportOutlined aria-hidden />
              <span>访问</span>
            </button>
          </span>
        )}
      </div>
    </article>
  );
}
