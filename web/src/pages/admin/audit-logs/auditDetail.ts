/** The audit log's detail objects as short Chinese text. */
import {
  ADMIN_STATUS_LABELS,
  formatBytes,
  messages,
  type ProjectStatus,
  ROLE_LABELS,
  type Role,
} from '@sitehall/contracts';

const KEY_LABELS: Record<string, string> = {
  from: '原值',
  to: '新值',
  comment: '意见',
  files: '文件数',
  bytes: '大小',
  type: '类型',
  login: '登录名',
  username: '用户名',
  role: '角色',
  name: '名称',
  owner: '所有者',
  version: '版本',
  remember: '记住我',
  fields: '修改字段',
  via: '方式',
  text: '内容',
  max_files_per_upload: '单次上传文件数',
  max_file_bytes: '单个文件大小',
  max_upload_bytes: '单次上传总大小',
  max_archive_entries: '压缩包条目数',
  max_archive_uncompressed_bytes: '压缩包解压后大小',
  allowed_extensions: '允许的文件类型',
  unknown_file_types: messages.review.configFields.unknown_file_types,
  preview_ttl_seconds: '预览有效期（秒）',
  max_user_storage_bytes: '每个用户的存储空间',
  max_uploads_per_hour: '每小时上传次数',
  storage_quota_bytes: '存储配额',
};

/** Keys whose values are statuses or roles, shown by their Chinese names. */
const LABELLED_KEYS = new Set(['from', 'to', 'role']);

const TYPE_LABELS: Record<string, string> = {
  files: '文件',
  zip: 'ZIP 压缩包',
  rar: 'RAR 压缩包',
  '7z': '7z 压缩包',
};

/** A project's fields, as an edit lists them (修改字段：描述、公开状态). */
const FIELD_LABELS: Record<string, string> = {
  name: '名称',
  description: '描述',
  is_public: '公开状态',
};

const BYTE_KEYS = new Set([
  'bytes',
  'max_file_bytes',
  'max_upload_bytes',
  'max_archive_uncompressed_bytes',
  'max_user_storage_bytes',
  'storage_quota_bytes',
]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function valueText(key: string, value: unknown): string {
  // An account without a quota of its own has the platform's.
  if (key === 'storage_quota_bytes' && value === null) return '平台默认';
  if (key === 'max_uploads_per_hour' && value === 0) return '不限';
  if (value === null || value === undefined || value === '') return '—';
  if (typeof value === 'boolean') return value ? '是' : '否';
  if (typeof value === 'number' && BYTE_KEYS.has(key)) return formatBytes(value);
  if (typeof value === 'string' && LABELLED_KEYS.has(key)) {
    if (Object.hasOwn(ADMIN_STATUS_LABELS, value)) return ADMIN_STATUS_LABELS[value as ProjectStatus];
    if (Object.hasOwn(ROLE_LABELS, value)) return ROLE_LABELS[value as Role];
  }
  if (typeof value === 'string' && key === 'type') return TYPE_LABELS[value] ?? value;
  if (typeof value === 'string' && key === 'fields') return FIELD_LABELS[value] ?? value;
  if (typeof value === 'string' && key === 'unknown_file_types') {
    const labels: Record<string, string> = messages.review.unknownFileTypeLabels;
    return labels[value] ?? value;
  }
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map((v) => valueText(key, v)).join('、');
  return JSON.stringify(value);
}

/** "原值：待审核 → 新值：已通过；意见：…" or, for a settings change, "单个文件大小：100 MB → 50 MB". */
export function describeAuditDetail(detail: Record<string, unknown> | null): string {
  if (!detail) return '';
  const entries = Object.entries(detail).filter(([, v]) => v !== undefined && v !== null);
  // A status or role change reads as one arrow.
  if ('from' in detail && 'to' in detail && !isRecord(detail.from)) {
    const rest = entries.filter(([k]) => k !== 'from' && k !== 'to');
    const change = `${valueText('from', detail.from)} → ${valueText('to', detail.to)}`;
    return [change, ...rest.map(([k, v]) => `${KEY_LABELS[k] ?? k}：${valueText(k, v)}`)].join('；');
  }
  return entries
    .map(([k, v]) => {
      const label = KEY_LABELS[k] ?? k;
      if (isRecord(v) && 'from' in v && 'to' in v) {
        return `${label}：${valueText(k, v.from)} → ${valueText(k, v.to)}`;
      }
      return `${label}：${valueText(k, v)}`;
    })
    .join('；');
}
