import { CheckOutlined, CopyOutlined } from '@ant-design/icons';
import { COPY_FEEDBACK_MS, messages } from '@sitehall/contracts';
import { App, Button, Tooltip } from 'antd';
import { useEffect, useState } from 'react';
import { copyText } from '../lib/clipboard';

/** A server-generated password, shown once, with a copy button. */
export function GeneratedPassword({ password }: { password: string }) {
  const { message } = App.useApp();
  const [copied, setCopied] = useState(false);

  useEffect(() => {
    if (!copied) return;
    const timer = window.setTimeout(() => setCopied(false), COPY_FEEDBACK_MS);
    return () => window.clearTimeout(timer);
  }, [copied]);

  const copy = async () => {
    try {
      await copyText(password);
      setCopied(true);
      message.success(messages.auth.passwordCopied);
    } catch {
      message.error(messages.auth.copyFailed);
    }
  };

  return (
    <div className="generated-password">
      <code className="generated-password__value" data-testid="generated-password">
        {password}
      </code>
      <Tooltip title={copied ? '已复制' : '复制到剪贴板'}>
        <Button
          type={copied ? 'default' : 'primary'}
          size="large"
          icon={copied ? <CheckOutlined aria-hidden /> : <CopyOutlined aria-hidden />}
          onClick={copy}
          aria-label="复制密码"
        >
          {copied ? '已复制' : '复制密码'}
        </Button>
      </Tooltip>
    </div>
  );
}
