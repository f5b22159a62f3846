import { useEffect } from 'react';

const APP_NAME = '站点展厅';

/** Names the browser tab after the page: "登录 - 站点展厅". */
export function useDocumentTitle(title?: string): void {
  useEffect(() => {
    document.title = title ? `${title} - ${APP_NAME}` : APP_NAME;
  }, [title]);
}
