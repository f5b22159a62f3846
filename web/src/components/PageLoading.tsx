import { Spin } from 'antd';

/** Shown while a page's code or the sign-in state is loading. */
export function PageLoading({ fullscreen = false }: { fullscreen?: boolean }) {
  return (
    <div
      className={fullscreen ? 'page-loading page-loading--fullscreen' : 'page-loading'}
      role="status"
      aria-live="polite"
    >
      <Spin size="large" />
      <span className="page-loading__text">加载中...</span>
    </div>
  );
}
