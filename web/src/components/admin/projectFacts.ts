/** Small facts about a project that several admin screens show the same way. */
import {
  type AdminProjectDto,
  type ContentCheckSummary,
  type DeploymentDto,
  type ProjectDto,
  REVIEW_ACTIONS,
  type ReviewAction,
} from '@sitehall/contracts';

/** "线上 v1，待审 v2": which version serves and which one the status is about. */
export function versionSummary(
  project: Pick<ProjectDto, 'status' | 'live_version' | 'latest_version'>,
): string {
  const { live_version: live, latest_version: latest, status } = project;
  if (latest === null) return '—';
  if (live === null) {
    if (status === 'taken_down') return `v${latest}（已下线）`;
    return status === 'rejected' ? `v${latest}（未上线）` : `v${latest}`;
  }
  if (live === latest) return `线上 v${live}`;
  const newest = status === 'pending' ? '待审' : status === 'rejected' ? '已拒绝' : '最新';
  return `线上 v${live}，${newest} v${latest}`;
}

/** The newest version, the one the review detail describes and a decision is about. */
export function newestDeployment(
  project: Pick<ProjectDto, 'deployments' | 'latest_version'>,
): DeploymentDto | undefined {
  return project.deployments?.find((d) => d.version === project.latest_version);
}

/** When the newest version arrived: while it waits, its upload; otherwise the project's creation. */
export function uploadTimeOf(project: Pick<AdminProjectDto, 'pending_since' | 'created_at'>): string {
  return project.pending_since ?? project.created_at;
}

/**
 * The review actions the server says this user may take now (ProjectDto.abilities, from the
 * server's transition table), in the order the buttons show them.
 */
export function allowedActions(project: Pick<ProjectDto, 'abilities'>): ReviewAction[] {
  return REVIEW_ACTIONS.filter((action) => project.abilities[action]);
}

/**
 * The one rule of what an approval from a list asks about first (the row's 通过, 批量通过) and
 * leaves out of 通过未发现中高风险的 N 个: a newest version the content check rated high or medium,
 * the levels that mean "look at this" (docs/content-check.md "Levels"). Low, info, clean and a
 * version never checked are not flagged (docs/decisions/review.md "Admin lists").
 */
export function isFlagged(
  check: ContentCheckSummary | null | undefined,
): check is ContentCheckSummary & { level: 'high' | 'medium' } {
  return check?.level === 'high' || check?.level === 'medium';
}
