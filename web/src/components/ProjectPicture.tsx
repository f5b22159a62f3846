import type { ProjectDto } from '@sitehall/contracts';
import { useThumbnail } from '../api/thumbnails';

/**
 * The project's rendered picture (docs/render.md) for its owner and admins, or the first letter of
 * its name while there is none (not rendered yet, or the render failed).
 */
export function ProjectPicture({
  project,
  width,
}: {
  project: Pick<ProjectDto, 'name' | 'thumbnail_url'>;
  width: number;
}) {
  const { src } = useThumbnail(project.thumbnail_url);
  const height = Math.round((width * 10) / 16);
  if (src)
    return (
      <img
        className="project-picture"
        src={src}
        alt={`${project.name} 的截图`}
        width={width}
        height={height}
        style={{
          objectFit: 'cover',
          objectPosition: 'top',
          borderRadius: 8,
          maxWidth: '100%',
          height: 'auto',
        }}
      />
    );
  return (
    <div
      className="project-picture project-picture--letter"
      aria-hidden
      style={{
        width,
        maxWidth: '100%',
        aspectRatio: '16 / 10',
        display: 'flex',
        alignItems: 'center',
        justifyContent: 'center',
        borderRadius: 8,
        background: 'linear-gradient(135deg, #eef2ff, #c7d2fe)',
        color: '#4338ca',
        fontSize: width / 5,
        fontWeight: 600,
      }}
    >
      {Array.from(project.name.trim())[0] ?? '站'}
    </div>
  );
}
