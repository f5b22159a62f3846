import { Typography } from 'antd';
import type { ReactNode } from 'react';
import { useDocumentTitle } from '../hooks/useDocumentTitle';

interface PageHeaderProps {
  title: string;
  description?: ReactNode;
  /** Actions shown on the right (buttons, links). */
  extra?: ReactNode;
  /** Shown above the title, e.g. a back link. */
  back?: ReactNode;
}

/** The heading of a page; also names the browser tab. */
export function PageHeader({ title, description, extra, back }: PageHeaderProps) {
  useDocumentTitle(title);
  return (
    <header className="page-header">
      {back && <div className="page-header__back">{back}</div>}
      <div className="page-header__row">
        <div className="page-header__text">
          <Typography.Title level={1} className="page-header__title">
            {title}
          </Typography.Title>
          {description && (
            <Typography.Paragraph type="secondary" className="page-header__description">
              {description}
            </Typography.Paragraph>
          )}
        </div>
        {extra && <div className="page-header__extra">{extra}</div>}
      </div>
    </header>
  );
}
