import { Spin, Typography } from 'antd';

/** Shown while a page's code or the sign-in state is loading. */
export function PageLoading({ fullscreen = false }: { fullscreen?: boolean }) {
  return (
    <div
      className={fullscreen ? 'page-loading page-loading--fullscreen' : 'page-loading'}
      role="status"
      aria-live="polite"
    >
      <Spin size="large" />
      <Typography.Text type="secondary">加载中...</Typography.Text>
    </div>
  );
}
