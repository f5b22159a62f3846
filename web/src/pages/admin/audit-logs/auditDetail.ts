/** The audit log's detail objects as short Chinese text. */
import {
  ARCHIVE_FORMAT_KEYS,
  ARCHIVE_FORMATS,
  formatBytes,
  type ProjectStatus,
  ROLE_LABELS,
  type Role,
  SETTINGS,
  type SettingDescriptor,
  type SettingKey,
  STATUS_LABELS,
  settingOf,
} from '@sitehall/contracts';
import { DEPLOY_LABEL } from '../../../lib/project-labels';

/** A platform setting's change is named and its values read as the settings table says. */
const settingOfKey = (key: string): SettingDescriptor | undefined =>
  Object.hasOwn(SETTINGS, key) ? settingOf(key as SettingKey) : undefined;

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
  storage_quota_bytes: '存储配额',
};

/** Keys whose values are statuses or roles, shown by their Chinese names. */
const LABELLED_KEYS = new Set(['from', 'to', 'role']);

/** An upload's type: loose files, the archive format the server read, or a digest deploy. */
const TYPE_LABELS: Record<string, string> = {
  files: '文件',
  ...Object.fromEntries(ARCHIVE_FORMAT_KEYS.map((format) => [format, ARCHIVE_FORMATS[format].label])),
  deploy: DEPLOY_LABEL,
};

/** A project's fields, as an edit lists them (修改字段：描述、公开状态). */
const FIELD_LABELS: Record<string, string> = {
  name: '名称',
  description: '描述',
  is_public: '公开状态',
};

const BYTE_KEYS = new Set(['bytes', 'storage_quota_bytes']);

function labelOf(key: string): string {
  return settingOfKey(key)?.name ?? KEY_LABELS[key] ?? key;
}

/** A setting's value in its unit's words, or undefined when it is not a setting's. */
function settingValueText(key: string, value: unknown): string | undefined {
  const d = settingOfKey(key);
  if (!d) return undefined;
  if (d.type === 'integer' && typeof value === 'number') {
    if (value === 0 && d.zeroMeans) return d.zeroMeans;
    if (d.unit === 'bytes') return formatBytes(value);
    if (d.unit === 'seconds') return `${value} 秒`;
  }
  if (d.type === 'enum' && typeof value === 'string') {
    const labels: Record<string, string> = d.optionLabels;
    return labels[value] ?? value;
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function valueText(key: string, value: unknown): string {
  // An account without a quota of its own has the platform's.
  if (key === 'storage_quota_bytes' && value === null) return '平台默认';
  const setting = settingValueText(key, value);
  if (setting !== undefined) return setting;
  if (value === null || value === undefined || value === '') return '—';
  if (typeof value === 'boolean') return value ? '是' : '否';
  if (typeof value === 'number' && BYTE_KEYS.has(key)) return formatBytes(value);
  if (typeof value === 'string' && LABELLED_KEYS.has(key)) {
    if (Object.hasOwn(STATUS_LABELS, value)) return STATUS_LABELS[value as ProjectStatus];
    if (Object.hasOwn(ROLE_LABELS, value)) return ROLE_LABELS[value as Role];
  }
  if (typeof value === 'string' && key === 'type') return TYPE_LABELS[value] ?? value;
  if (typeof value === 'string' && key === 'fields') return FIELD_LABELS[value] ?? value;
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
    return [change, ...rest.map(([k, v]) => `${labelOf(k)}：${valueText(k, v)}`)].join('；');
  }
  return entries
    .map(([k, v]) => {
      const label = labelOf(k);
      if (isRecord(v) && 'from' in v && 'to' in v) {
        return `${label}：${valueText(k, v.from)} → ${valueText(k, v.to)}`;
      }
      return `${label}：${valueText(k, v)}`;
    })
    .join('；');
}
