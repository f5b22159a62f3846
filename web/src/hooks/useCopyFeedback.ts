/** Copies text, says so, and shows a "copied" state on the button for 3 s (docs/product.md §9). */
import { COPY_FEEDBACK_MS, messages } from '@sitehall/contracts';
import { App } from 'antd';
import { useCallback, useEffect, useState } from 'react';
import { copyText } from '../lib/clipboard';

export function useCopyFeedback(successMessage: string) {
  const { message } = App.useApp();
  const [copied, setCopied] = useState(false);

  useEffect(() => {
    if (!copied) return;
    const timer = window.setTimeout(() => setCopied(false), COPY_FEEDBACK_MS);
    return () => window.clearTimeout(timer);
  }, [copied]);

  const copy = useCallback(
    async (text: string) => {
      try {
        await copyText(text);
        setCopied(true);
        message.success(successMessage);
      } catch {
        message.error(messages.auth.copyFailed);
      }
    },
    [message, successMessage],
  );

  return { copied, copy };
}
