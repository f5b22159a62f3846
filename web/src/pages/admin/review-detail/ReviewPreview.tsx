import { CloseOutlined, ExportOutlined } from '@ant-design/icons';
import type { PreviewTokenDto } from '@sitehall/contracts';
import { Button, Space, Typography } from 'antd';
import { useEffect, useState } from 'react';
import { formatDateTime } from '../../../lib/format';

/** "29:59": minutes and seconds left (docs/product.md §4, the preview countdown). */
export function formatRemaining(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const minutes = Math.floor(total / 60);
  const seconds = total % 60;
  return `${String(minutes).padStart(2, '0')}:${String(seconds).padStart(2, '0')}`;
}

interface ReviewPreviewProps {
  preview: PreviewTokenDto;
  /** Called when the link has expired or the admin closes the preview. */
  onExpire: () => void;
}

/**
 * The newest version as the reviewer sees it: a time-limited link that opens in a new tab, and the
 * same page framed here. The preview response is sandboxed by the server (no access to the app).
 */
export function ReviewPreview({ preview, onExpire }: ReviewPreviewProps) {
  const expiresAt = new Date(preview.expires_at).getTime();
  const [now, setNow] = useState(() => Date.now());

  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(timer);
  }, []);

  const remaining = expiresAt - now;
  useEffect(() => {
    if (remaining <= 0) onExpire();
  }, [remaining, onExpire]);

  return (
    <section className="review-preview" aria-label="项目预览">
      <div className="review-preview__bar">
        <Space size={8} wrap className="review-preview__info">
          <Typography.Text strong>预览链接</Typography.Text>
          <Typography.Link href={preview.preview_url} target="_blank" rel="noopener noreferrer">
            在新标签页打开 <ExportOutlined aria-hidden />
          </Typography.Link>
          <Typography.Text type="secondary" className="review-preview__expiry">
            有效期至 {formatDateTime(preview.expires_at)}（剩余 {formatRemaining(remaining)}）
          </Typography.Text>
        </Space>
        <Button size="small" type="text" icon={<CloseOutlined aria-hidden />} onClick={onExpire}>
          关闭预览
        </Button>
      </div>
      <iframe
        className="review-preview__frame"
        title="项目预览"
        src={preview.preview_url}
        sandbox="allow-scripts allow-forms allow-popups allow-popups-to-escape-sandbox"
        referrerPolicy="no-referrer"
      />
    </section>
  );
}
