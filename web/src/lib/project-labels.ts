/** Words for versions and review decisions, on the owner's and the admin's screens alike. */
import {
  ARCHIVE_FORMATS,
  type DeploymentStatus,
  REVIEW_ACTION_LABELS,
  type UploadSource,
  type UploadType,
} from '@sitehall/contracts';

export const DEPLOYMENT_STATUS_LABELS: Record<DeploymentStatus, { label: string; color: string }> = {
  pending: { label: '待审核', color: 'gold' },
  approved: { label: '已通过', color: 'green' },
  rejected: { label: '已拒绝', color: 'red' },
  superseded: { label: '已被新版本替代', color: 'default' },
};

const ACTION_LABELS: Record<string, string> = { ...REVIEW_ACTION_LABELS, rollback: '回滚' };

export function reviewActionLabel(action: string): string {
  return ACTION_LABELS[action] ?? action;
}

/** Colour of a decision in the history: green for good news, red for bad. */
export function reviewActionColor(action: string): string {
  if (action === 'approve' || action === 'publish') return 'green';
  if (action === 'reject' || action === 'takedown') return 'red';
  return 'blue';
}

/** What a version or project says about how its files arrived. */
type UploadFacts = { upload_type: UploadType; upload_source: UploadSource | null };

/**
 * Spec §2, short (the owner's overview and every versions list): ZIP unless the files came loose;
 * a version that recorded how it arrived names its real archive format (RAR, 7z) or 命令行部署.
 */
export function uploadTypeLabel({ upload_type, upload_source }: UploadFacts): string {
  if (upload_source === null) return upload_type === 'files' ? '文件' : 'ZIP';
  if (upload_source === 'files') return '文件';
  if (upload_source === 'deploy') return DEPLOY_LABEL;
  return ARCHIVE_FORMATS[upload_source].name;
}

/** A digest deploy (`sitehall deploy`), wherever a version's way in is named. */
export const DEPLOY_LABEL = '命令行部署';
/** How versions from before the way in was recorded read, as they always have. */
const RECORDED_BEFORE: Record<UploadType, string> = {
  zip: 'ZIP 压缩包',
  files: '文件上传',
  auto: '自动识别',
};

/** The review page's 上传方式: 文件上传, RAR 压缩包 (the format the server read), 命令行部署. */
export function uploadSourceLabel({ upload_type, upload_source }: UploadFacts): string {
  if (upload_source === null) return RECORDED_BEFORE[upload_type];
  if (upload_source === 'files') return RECORDED_BEFORE.files;
  if (upload_source === 'deploy') return DEPLOY_LABEL;
  return `${ARCHIVE_FORMATS[upload_source].name} 压缩包`;
}
