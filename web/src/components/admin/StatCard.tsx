import './admin.css';
import { Card } from 'antd';
import type { ReactNode } from 'react';

interface StatCardProps {
  title: string;
  value: number;
  icon: ReactNode;
  /** The icon's colour family: indigo, amber, emerald, rose, sky, violet. */
  tone: string;
  footer?: ReactNode;
}

const numberFormat = new Intl.NumberFormat('zh-CN');

/** One counter of the admin overview: a label, the number, and a line of context under it. */
export function StatCard({ title, value, icon, tone, footer }: StatCardProps) {
  return (
    <Card className="stat-card">
      <div className="stat-card__head">
        <span className="stat-card__title">{title}</span>
        <span className={`stat-card__icon stat-card__icon--${tone}`} aria-hidden>
          {icon}
        </span>
      </div>
      <div className="stat-card__value">{numberFormat.format(value)}</div>
      {footer && <div className="stat-card__footer">{footer}</div>}
    </Card>
  );
}
