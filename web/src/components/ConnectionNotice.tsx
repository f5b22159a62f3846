/**
 * 无法连接服务器, at the top of the window whatever the page and wherever it is scrolled, while the
 * server can't be reached (lib/connection.ts); 已重新连接服务器 for a moment once it answers again.
 * Plain markup, no antd: it shows when the code of antd itself may be what failed to load.
 */
import { CheckCircleFilled, DisconnectOutlined, LoadingOutlined } from '@ant-design/icons';
import { commonMessages } from '@sitehall/contracts';
import { useSyncExternalStore } from 'react';
import { connectionState, retryConnectionNow, subscribeConnection } from '../lib/connection';

export function ConnectionNotice() {
  const state = useSyncExternalStore(subscribeConnection, connectionState, connectionState);
  if (state === 'online') return null;
  if (state === 'back') {
    return (
      <div className="connection-notice connection-notice--back" role="status">
        <CheckCircleFilled aria-hidden className="connection-notice__icon" />
        <span className="connection-notice__title">{commonMessages.connectionBack}</span>
      </div>
    );
  }
  return (
    <div className="connection-notice" role="alert">
      <DisconnectOutlined aria-hidden className="connection-notice__icon" />
      <div className="connection-notice__body">
        <div className="connection-notice__title">{commonMessages.connectionLost}</div>
        <div className="connection-notice__text">
          <LoadingOutlined aria-hidden /> {commonMessages.connectionRetrying}
        </div>
      </div>
      <button
        type="button"
        className="sh-btn sh-btn--default connection-notice__retry"
        onClick={retryConnectionNow}
      >
        {commonMessages.connectionRetryNow}
      </button>
    </div>
  );
}
