import './admin.css';
import { ArrowDownOutlined, ArrowUpOutlined, MinusOutlined } from '@ant-design/icons';
import type { WeekTrendDto } from '@sitehall/contracts';

interface TrendIndicatorProps {
  trend: WeekTrendDto;
  /** What is counted: 新项目, 上传, 访问… */
  what: string;
  /** Its measure word: 个, 次, 人. */
  unit: string;
}

/**
 * Every trend of the admin dashboard reads one way (docs/decisions/review.md "Dashboard trends"):
 * what, the count of the last 7 days, and the change against the 7 days before as a count, then
 * as a percentage in brackets, or 前 7 天为 0 where a percentage means nothing:
 * "新项目：近 7 天 3 个，较前 7 天 ↑ +1（+50%）", "上传：近 7 天 4 次，较前 7 天 ↑ +4（前 7 天为 0）".
 */
export function TrendIndicator({ trend, what, unit }: TrendIndicatorProps) {
  const change = trend.this_week - trend.last_week;
  const direction = change > 0 ? 'up' : change < 0 ? 'down' : 'flat';
  const icon =
    direction === 'up' ? (
      <ArrowUpOutlined aria-label="上升" />
    ) : direction === 'down' ? (
      <ArrowDownOutlined aria-label="下降" />
    ) : (
      <MinusOutlined aria-label="持平" />
    );
  const percent = trend.trend_percent === null ? '前 7 天为 0' : signed(trend.trend_percent, '%');
  return (
    <span
      className={`trend trend--${direction}`}
      data-testid="trend"
      title={`近 7 天 ${trend.this_week} ${unit}，前 7 天 ${trend.last_week} ${unit}`}
    >
      {`${what}：近 7 天 ${trend.this_week} ${unit}，较前 7 天`} {icon} {`${signed(change)}（${percent}）`}
    </span>
  );
}

/** "+4", "-3", "0"; percentages to one decimal at most ("+12.5%"). */
function signed(value: number, suffix = ''): string {
  const text = `${Number.parseFloat(Math.abs(value).toFixed(1))}${suffix}`;
  return value > 0 ? `+${text}` : value < 0 ? `-${text}` : text;
}
