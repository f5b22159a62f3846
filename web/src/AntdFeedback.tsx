/**
 * antd's App: the host of App.useApp()'s message, notification and modal. Its own module, so a
 * page that shows none of them (the showcase) does not load them (AppProviders' lazyInShell).
 */
import { App as AntdApp } from 'antd';
import type { ReactNode } from 'react';

/** `inline`: no wrapping element (a menu inside the navigation bar). */
export function AntdFeedback({ children, inline = false }: { children: ReactNode; inline?: boolean }) {
  return <AntdApp component={inline ? false : 'div'}>{children}</AntdApp>;
}
