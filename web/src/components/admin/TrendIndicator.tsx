import './admin.css';
import { ArrowDownOutlined, ArrowUpOutlined, MinusOutlined } from '@ant-design/icons';
import type { WeekTrendDto } from '@sitehall/contracts';

/** "较上周 ↑ 12.5%" from this week against last; without last week's figure, a dash and no percentage. */
export function TrendIndicator({ trend, label = '较上周' }: { trend: WeekTrendDto; label?: string }) {
  const percent = trend.trend_percent;
  if (percent === null) {
    return (
      <span className="trend trend--none" data-testid="trend" title="上周没有数据，无法计算变化">
        {label} —
      </span>
    );
  }
  const direction = percent > 0 ? 'up' : percent < 0 ? 'down' : 'flat';
  const icon =
    direction === 'up' ? (
      <ArrowUpOutlined aria-label="上升" />
    ) : direction === 'down' ? (
      <ArrowDownOutlined aria-label="下降" />
    ) : (
      <MinusOutlined aria-label="持平" />
    );
  return (
    <span className={`trend trend--${direction}`} data-testid="trend">
      {label} {icon} {formatPercent(Math.abs(percent))}
    </span>
  );
}

function formatPercent(value: number): string {
  return `${Number.parseFloat(value.toFixed(1))}%`;
}
