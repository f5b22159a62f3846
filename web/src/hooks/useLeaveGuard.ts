import { App } from 'antd';
import { useEffect, useRef } from 'react';
import { useBlocker } from 'react-router-dom';

/**
 * While `dirty`, leaving the page asks first: for another page of the app, a dialog that can keep
 * the admin here; for closing or reloading the tab, the browser's own question.
 */
export function useLeaveGuard(dirty: boolean, question: { title: string; content: string }) {
  const { modal } = App.useApp();
  const blocker = useBlocker(
    ({ currentLocation, nextLocation }) => dirty && currentLocation.pathname !== nextLocation.pathname,
  );
  const latest = useRef({ blocker, question });
  latest.current = { blocker, question };

  useEffect(() => {
    if (blocker.state !== 'blocked') return;
    const { question } = latest.current;
    modal.confirm({
      title: question.title,
      content: question.content,
      okText: '离开',
      okButtonProps: { danger: true },
      cancelText: '留下继续编辑',
      onOk: () => latest.current.blocker.proceed?.(),
      onCancel: () => latest.current.blocker.reset?.(),
    });
  }, [blocker.state, modal]);

  useEffect(() => {
    if (!dirty) return;
    const ask = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener('beforeunload', ask);
    return () => window.removeEventListener('beforeunload', ask);
  }, [dirty]);
}
