/** Shown while a page's code or the sign-in state is loading (plain markup: antd may not be loaded yet). */
export function PageLoading({ fullscreen = false }: { fullscreen?: boolean }) {
  return (
    <div
      className={fullscreen ? 'page-loading page-loading--fullscreen' : 'page-loading'}
      role="status"
      aria-live="polite"
    >
      <span className="page-loading__spinner" aria-hidden="true" />
      <span className="page-loading__text">加载中...</span>
    </div>
  );
}
