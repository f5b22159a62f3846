/** Small facts about a project that several admin screens show the same way. */
import type { AdminProjectDto, ProjectDto, ReviewAction } from '@sitehall/contracts';

/** "线上 v1，待审 v2": which version serves and which one the status is about. */
export function versionSummary(
  project: Pick<ProjectDto, 'status' | 'live_version' | 'latest_version'>,
): string {
  const { live_version: live, latest_version: latest, status } = project;
  if (latest === null) return '—';
  if (live === null) return status === 'rejected' ? `v${latest}（未上线）` : `v${latest}`;
  if (live === latest) return `线上 v${live}`;
  const newest = status === 'pending' ? '待审' : status === 'rejected' ? '已拒绝' : '最新';
  return `线上 v${live}，${newest} v${latest}`;
}

/** When the newest version arrived: while it waits, its upload; otherwise the project's creation. */
export function uploadTimeOf(project: Pick<AdminProjectDto, 'pending_since' | 'created_at'>): string {
  return project.pending_since ?? project.created_at;
}

/**
 * The review actions the server allows from the project's state (server/src/policies/review.ts):
 * decisions on a waiting version, featuring a live one, taking any live site down.
 */
export function allowedActions(project: Pick<ProjectDto, 'status' | 'is_live'>): ReviewAction[] {
  const actions: ReviewAction[] = [];
  if (project.status === 'pending') actions.push('approve', 'reject');
  if (project.status === 'approved' && project.is_live) actions.push('publish');
  if (project.status === 'published' && project.is_live) actions.push('unpublish');
  if (project.is_live) actions.push('takedown');
  return actions;
}
