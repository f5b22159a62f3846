import './admin.css';
import { ArrowDownOutlined, ArrowUpOutlined, MinusOutlined } from '@ant-design/icons';
import type { WeekTrendDto } from '@sitehall/contracts';

/**
 * "较上周 ↑ 12.5%" from this week against last. With nothing last week and something this week
 * (the server's null) a percentage would mean nothing: the count itself, "较上周 ↑ +4".
 */
export function TrendIndicator({ trend, label = '较上周' }: { trend: WeekTrendDto; label?: string }) {
  const percent = trend.trend_percent;
  if (percent === null) {
    return (
      <span className="trend trend--up" data-testid="trend" title="上周为 0，本周有新增">
        {label} <ArrowUpOutlined aria-label="上升" /> +{trend.this_week}
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
