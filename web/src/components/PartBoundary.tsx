/**
 * A part of the page (the navigation bar's menus, the phone's drawer) whose code could not be had
 * although the server answers (a redeploy removed it): left out and logged, never the whole page
 * replaced by the error screen. Without a connection its code waits instead (lib/connection.ts).
 */
import { Component, type ErrorInfo, type ReactNode } from 'react';

interface State {
  failed: boolean;
}

export class PartBoundary extends Component<{ children: ReactNode; fallback?: ReactNode }, State> {
  override state: State = { failed: false };

  static getDerivedStateFromError(): State {
    return { failed: true };
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error('页面的一部分加载失败', error, info.componentStack);
  }

  override render() {
    return this.state.failed ? (this.props.fallback ?? null) : this.props.children;
  }
}
