/** Roles, project statuses, review actions and their Chinese labels (docs/product.md "Statuses and transitions"). */
import { reviewMessages } from './messages/review.js';

export const ROLES = ['admin', 'user'] as const;
export type Role = (typeof ROLES)[number];
export const ROLE_LABELS: Record<Role, string> = { admin: '管理员', user: '用户' };

/**
 * A takedown is a state of its own (taken_down, 已下线), apart from a refused upload (rejected):
 * the owner of a site that was live reads that it was taken offline, and why.
 */
export const PROJECT_STATUSES = ['pending', 'approved', 'published', 'rejected', 'taken_down'] as const;
export type ProjectStatus = (typeof PROJECT_STATUSES)[number];

/**
 * One word per state for everyone (docs/product.md "Statuses and transitions"): live is 已发布,
 * featured (live and marked in the showcase) is 精选, and 精选 never means anything else.
 */
export const STATUS_LABELS: Record<ProjectStatus, string> = {
  pending: '待审核',
  approved: '已发布',
  published: '精选',
  rejected: '已拒绝',
  taken_down: '已下线',
};

export const STATUS_COLORS: Record<ProjectStatus, string> = {
  pending: 'gold',
  approved: 'green',
  published: 'blue',
  rejected: 'red',
  taken_down: 'volcano',
};

/** Statuses in which a project's live deployment is served. */
export const LIVE_STATUSES: readonly ProjectStatus[] = ['approved', 'published'];

/** A list's status filter: everything, or a status as the filters and tabs name it. */
export type StatusFilter = 'all' | ProjectStatus;

/**
 * What a status filter holds, the same for the owner's 我的项目, the admin lists' tabs and the
 * dashboards' counters (docs/decisions/review.md "Review list"): 已发布 (`approved`) is every live
 * project, the featured ones included; 精选 (`published`) only those. null: no filter.
 */
export function statusesOfFilter(filter: StatusFilter): readonly ProjectStatus[] | null {
  if (filter === 'all') return null;
  return filter === 'approved' ? LIVE_STATUSES : [filter];
}

/** How many projects a status filter holds, from the counts by status. */
export function countOfFilter(counts: Record<ProjectStatus, number>, filter: StatusFilter): number {
  return (statusesOfFilter(filter) ?? PROJECT_STATUSES).reduce((sum, status) => sum + counts[status], 0);
}

export const DEPLOYMENT_STATUSES = ['pending', 'approved', 'rejected', 'superseded'] as const;
export type DeploymentStatus = (typeof DEPLOYMENT_STATUSES)[number];

export const REVIEW_ACTIONS = ['approve', 'reject', 'publish', 'unpublish', 'takedown'] as const;
export type ReviewAction = (typeof REVIEW_ACTIONS)[number];
export const BATCH_ACTIONS = [...REVIEW_ACTIONS, 'delete'] as const;
export type BatchAction = (typeof BATCH_ACTIONS)[number];

export const REVIEW_ACTION_LABELS: Record<BatchAction, string> = {
  approve: '通过',
  reject: '拒绝',
  publish: '设为精选',
  unpublish: '取消精选',
  takedown: '下线',
  delete: '删除',
};

/** Actions that must carry a comment. */
export const ACTIONS_REQUIRING_COMMENT: readonly ReviewAction[] = ['reject', 'takedown'];

/** What a decision of ACTIONS_REQUIRING_COMMENT says without its reason: each in its own words. */
export function reasonRequiredMessage(action: ReviewAction): string {
  return action === 'takedown' ? reviewMessages.takedownReasonRequired : reviewMessages.reasonRequired;
}

export const UPLOAD_TYPES = ['auto', 'files', 'zip'] as const;
export type UploadType = (typeof UPLOAD_TYPES)[number];
