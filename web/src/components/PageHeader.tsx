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

/** The heading of a page; also names the browser tab. Plain markup: antd's Typography is heavy for a title. */
export function PageHeader({ title, description, extra, back }: PageHeaderProps) {
  useDocumentTitle(title);
  return (
    <header className="page-header">
      {back && <div className="page-header__back">{back}</div>}
      <div className="page-header__row">
        <div className="page-header__text">
          <h1 className="page-header__title">{title}</h1>
          {description && <div className="page-header__description">{description}</div>}
        </div>
        {extra && <div className="page-header__extra">{extra}</div>}
      </div>
    </header>
  );
}
