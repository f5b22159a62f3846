/** Words for versions and review decisions, on the owner's and the admin's screens alike. */
import { type DeploymentStatus, REVIEW_ACTION_LABELS, type UploadType } from '@sitehall/contracts';

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

/** Spec §2: the upload type reads ZIP unless the project was uploaded as loose files. */
export function uploadTypeLabel(type: UploadType | null | undefined): string {
  return type === 'files' ? '文件' : 'ZIP';
}
