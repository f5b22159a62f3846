/**
 * The generic error screen (spec §2, §8). It uses no router or auth hooks, so it also works as the
 * outermost error boundary, outside the router.
 */
import { CloseCircleFilled, ReloadOutlined, RollbackOutlined } from '@ant-design/icons';
import { messages } from '@sitehall/contracts';
import { Button } from 'antd';
import { Component, type ErrorInfo, type ReactNode, useEffect } from 'react';
import { useRouteError } from 'react-router-dom';

export function ErrorScreen() {
  // Plain markup rather than antd's Result, whose status pictures all load with it: this screen is
  // in every page's first load.
  return (
    <div className="error-screen" role="alert">
      <CloseCircleFilled className="error-screen__icon" aria-hidden />
      <h1 className="error-screen__title">{messages.common.genericErrorTitle}</h1>
      <p className="error-screen__text">{messages.common.genericErrorText}</p>
      <div className="error-screen__actions">
        <Button type="primary" icon={<ReloadOutlined aria-hidden />} onClick={() => window.location.reload()}>
          刷新页面
        </Button>
        <Button icon={<RollbackOutlined aria-hidden />} onClick={() => window.history.back()}>
          返回上一页
        </Button>
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
