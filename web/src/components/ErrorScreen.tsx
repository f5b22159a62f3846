/**
 * The generic error screen (docs/product.md §2, §8). It uses no router or auth hooks, so it also works as the
 * outermost error boundary, outside the router.
 */
import { CloseCircleFilled, ReloadOutlined, RollbackOutlined } from '@ant-design/icons';
import { commonMessages } from '@sitehall/contracts';
import { Component, type ErrorInfo, type ReactNode, useEffect } from 'react';
import { useRouteError } from 'react-router-dom';
import { reportNoAnswer, whenConnected } from '../lib/connection';

/**
 * 刷新页面: at once when the server answers; without a connection, once it is back (the notice
 * says so meanwhile), never into the browser's own error page.
 */
async function reloadWhenReachable() {
  if (await reportNoAnswer()) await whenConnected();
  window.location.reload();
}

export function ErrorScreen() {
  // Plain markup, no antd: this screen is in every page's first load, and shows when a page's code
  // (antd included) failed to load.
  return (
    <div className="error-screen" role="alert">
      <CloseCircleFilled className="error-screen__icon" aria-hidden />
      <h1 className="error-screen__title">{commonMessages.genericErrorTitle}</h1>
      <p className="error-screen__text">{commonMessages.genericErrorText}</p>
      <div className="error-screen__actions">
        <button type="button" className="sh-btn sh-btn--primary" onClick={() => void reloadWhenReachable()}>
          <ReloadOutlined aria-hidden />
          <span>刷新页面</span>
        </button>
        <button type="button" className="sh-btn sh-btn--default" onClick={() => window.history.back()}>
          <RollbackOutlined aria-hidden />
          <span>返回上一页</span>
        </button>
      </div>
    </div>
  );
}

/** The router's error element: logs what went wrong, shows the error screen. */
export function RouteErrorScreen() {
  const error = useRouteError();
  useEffect(() => {
    console.error('页面渲染失败', error);
  }, [error]);
  return <ErrorScreen />;
}

interface BoundaryState {
  failed: boolean;
}

/** Catches render errors outside the router (providers, the router itself). */
export class AppErrorBoundary extends Component<{ children: ReactNode }, BoundaryState> {
  override state: BoundaryState = { failed: false };

  static getDerivedStateFromError(): BoundaryState {
    return { failed: true };
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error('页面渲染失败', error, info.componentStack);
  }

  override render() {
    return this.state.failed ? <ErrorScreen /> : this.props.children;
  }
}
