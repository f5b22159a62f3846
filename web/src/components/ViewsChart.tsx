import type { ProjectStatsDto } from '@sitehall/contracts';
import { Tooltip } from 'antd';
import './views-chart.css';

/** "05-01" from "2024-05-01". */
function shortDay(day: string): string {
  return day.slice(5);
}

/**
 * The last 30 days of views as plain bars: no chart library for thirty numbers. Shown to admins on
 * the review page and to owners on their project page.
 */
export function ViewsChart({ days }: { days: ProjectStatsDto['views_by_day'] }) {
  const max = Math.max(0, ...days.map((d) => d.views));
  const total = days.reduce((sum, d) => sum + d.views, 0);
  const first = days[0];
  const last = days.at(-1);
  return (
    <figure className="views-chart" aria-label={`最近 ${days.length} 天访问量，共 ${total} 次`}>
      <div className="views-chart__plot">
        {max > 0 && (
          <span className="views-chart__max" aria-hidden>
            {max}
          </span>
        )}
        <ol className="views-chart__bars">
          {days.map((d) => (
            <Tooltip key={d.day} title={`${d.day}：${d.views} 次访问`}>
              <li
                aria-label={`${d.day} ${d.views} 次`}
                className={d.views > 0 ? 'views-chart__bar' : 'views-chart__bar views-chart__bar--zero'}
                style={{ height: max > 0 ? `${Math.max(2, (d.views / max) * 100)}%` : '2px' }}
              />
            </Tooltip>
          ))}
        </ol>
        {total === 0 && <span className="views-chart__empty">最近 30 天暂无访问</span>}
      </div>
      {first && last && (
        <figcaption className="views-chart__axis">
          <span>{shortDay(first.day)}</span>
          <span>最近 {days.length} 天</span>
          <span>{shortDay(last.day)}</span>
        </figcaption>
      )}
    </figure>
  );
}
