import { Suspense } from 'react';
import { Outlet } from 'react-router-dom';
import { PageLoading } from '../PageLoading';
import { NavBar } from './NavBar';
import { MAIN_ID, SkipLink } from './SkipLink';

/** Home, showcase, login and register: the navigation bar over full-width content (no antd: see AntdShell). */
export function PublicLayout() {
  return (
    <div className="app-shell app-shell--public">
      <SkipLink />
      <NavBar />
      <main className="public-content" id={MAIN_ID} tabIndex={-1}>
        <Suspense fallback={<PageLoading />}>
          <Outlet />
        </Suspense>
      </main>
      <footer className="app-footer">
        <span>站点展厅 · 静态网站上传、审核与展示平台</span>
        <span className="app-footer__sep" aria-hidden="true">
          ·
        </span>
        <span>所有站点均经管理员审核后发布</span>
      </footer>
    </div>
  );
}
