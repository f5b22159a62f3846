import type { ProjectStatsDto } from '@sitehall/contracts';
import { Card } from 'antd';
import { ViewsChart } from '../../../components/ViewsChart';

/** Access and download counts of the project, and its views of the last 30 days. */
export function StatsCard({ stats }: { stats: ProjectStatsDto }) {
  const figures = [
    { label: '访问次数', value: stats.view_count },
    { label: '下载次数', value: stats.download_count },
    { label: '近 7 天访问', value: stats.views_last_7_days },
  ];
  return (
    <Card title="访问统计" className="review-detail__card">
      <dl className="detail-figures">
        {figures.map((f) => (
          <div key={f.label} className="detail-figures__item">
            <dt>{f.label}</dt>
            <dd>{f.value}</dd>
          </div>
        ))}
      </dl>
      <ViewsChart days={stats.views_by_day} />
    </Card>
  );
}
