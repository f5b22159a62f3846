/**
 * The owner's storage against their quota (docs/decisions/uploads.md "Storage quota and upload rate"): a
 * bar with "已使用 X / Y", amber from 80 %, red when full. Used by the dashboard, my projects and
 * the upload page (full size) and the admin user list (small).
 */
import { format, formatBytes, messages, type StorageUsageDto } from '@sitehall/contracts';
import { Progress, Skeleton, Typography, theme } from 'antd';
import './storage-usage.css';

/** Share of the quota in use, 0–100 (rounded down, so a bar reads full only when it is). */
export function usagePercent({ used_bytes, quota_bytes }: StorageUsageDto): number {
  if (quota_bytes <= 0) return 100;
  return Math.min(100, Math.floor((used_bytes / quota_bytes) * 100));
}

function barStatus(usage: StorageUsageDto): 'normal' | 'exception' {
  return usage.used_bytes >= usage.quota_bytes ? 'exception' : 'normal';
}

/** Amber from 80 % until full (then the bar's own red). */
function nearlyFull(usage: StorageUsageDto): boolean {
  return usage.used_bytes < usage.quota_bytes && usagePercent(usage) >= 80;
}

export function usageText(usage: StorageUsageDto): string {
  return format(messages.project.storageUsageText, {
    used: formatBytes(usage.used_bytes),
    quota: formatBytes(usage.quota_bytes),
  });
}

export function StorageUsage({
  usage,
  size = 'default',
}: {
  /** undefined while loading. */
  usage: StorageUsageDto | undefined;
  size?: 'default' | 'small';
}) {
  const { token } = theme.useToken();
  const label = messages.project.storageUsage;
  if (!usage) {
    return size === 'small' ? null : <Skeleton active title={false} paragraph={{ rows: 1 }} />;
  }
  const percent = usagePercent(usage);
  const text = usageText(usage);
  const bar = (
    <Progress
      percent={percent}
      status={barStatus(usage)}
      strokeColor={nearlyFull(usage) ? token.colorWarning : undefined}
      showInfo={false}
      size={size === 'small' ? 'small' : 'medium'}
      aria-label={`${label}：${text}`}
    />
  );
  if (size === 'small') {
    return (
      <div className="storage-usage storage-usage--small" title={`${label}：${text}`}>
        <span className="storage-usage__text">
          {formatBytes(usage.used_bytes)} / {formatBytes(usage.quota_bytes)}
        </span>
        {bar}
      </div>
    );
  }
  return (
    <div className="storage-usage" data-testid="storage-usage">
      <div className="storage-usage__head">
        <Typography.Text strong>{label}</Typography.Text>
        <Typography.Text type="secondary" className="storage-usage__text">
          {text}
        </Typography.Text>
      </div>
      {bar}
      {usage.used_bytes >= usage.quota_bytes && (
        <Typography.Text type="danger" className="storage-usage__full">
          存储空间已用完：请删除不再需要的项目，或联系管理员提高配额。
        </Typography.Text>
      )}
    </div>
  );
}
