/**
 * The review state machine of docs/product.md "Statuses and transitions", in one table: for each
 * action, which states allow it (the guard), what it changes on the project, which version it is
 * about and that version's new status, and what happens to the live version. policies/review.ts
 * answers "may this run now" from the guards and the review service applies what `planTransition`
 * returns; nothing else restates them. "Live" is a project with a live version, whatever its
 * newest upload's review says.
 */
import type { DeploymentStatus, ProjectStatus, ReviewAction } from '@sitehall/contracts';

/** What a review decision can make a version: approved or rejected (never pending or superseded). */
export type ReviewedVersionStatus = Extract<DeploymentStatus, 'approved' | 'rejected'>;

/** The review decisions, and an earlier approved version going live again. */
export type TransitionAction = ReviewAction | 'rollback';

/** What a guard refuses with: each is a key of messages.review. */
export type TransitionRefusal =
  | 'transitionNotAllowed'
  | 'rollbackOffline'
  | 'rollbackNotAllowed'
  | 'rollbackAlreadyLive';

/** The project as a transition sees it. */
export interface ReviewedProject {
  status: ProjectStatus;
  featured: boolean;
  latestDeploymentId: number | null;
  liveDeploymentId: number | null;
}

/** A project row's review facts (featured is stored as 0/1). */
export function reviewedProjectOf(row: {
  status: ProjectStatus;
  featured: number | boolean;
  latest_deployment_id: number | null;
  live_deployment_id: number | null;
}): ReviewedProject {
  return {
    status: row.status,
    featured: Boolean(row.featured),
    latestDeploymentId: row.latest_deployment_id,
    liveDeploymentId: row.live_deployment_id,
  };
}

/** A version an action names itself (a rollback's target). */
export interface ChosenVersion {
  id: number;
  status: DeploymentStatus;
}

export interface Transition {
  /** null when the action may run; else why not. */
  guard(project: ReviewedProject, chosen?: ChosenVersion): TransitionRefusal | null;
  /** The project's status afterwards (absent: unchanged). */
  status?(project: ReviewedProject): ProjectStatus;
  /** The featured mark afterwards (absent: unchanged). */
  featured?: boolean;
  /** Stamps the approval (approved_at/by) or the featuring (published_at) with the decision. */
  stamp?: 'approved' | 'published';
  /** The version the action is about: the newest upload, the live one, or the one it names. */
  version: 'latest' | 'live' | 'chosen';
  /** That version's status afterwards (null: unchanged). */
  versionStatus: ReviewedVersionStatus | null;
  /** The live version afterwards: the version acted on, none (offline), or unchanged. */
  live: 'version' | 'offline' | 'unchanged';
  /**
   * A takedown of an older live version also rejects the newest upload (pending or rejected), so
   * its rejection reason stays in view.
   */
  rejectsNewerUpload?: boolean;
}

const isLive = (p: ReviewedProject) => p.liveDeploymentId !== null;
const when = (allowed: boolean): TransitionRefusal | null => (allowed ? null : 'transitionNotAllowed');

export const TRANSITIONS: Record<TransitionAction, Transition> = {
  // Decisions apply to the newest upload while it waits for review; approving it makes it live.
  approve: {
    guard: (p) => when(p.status === 'pending'),
    status: (p) => (p.featured ? 'published' : 'approved'),
    stamp: 'approved',
    version: 'latest',
    versionStatus: 'approved',
    live: 'version',
  },
  // A live version keeps serving; the status tells the owner the new upload was refused.
  reject: {
    guard: (p) => when(p.status === 'pending'),
    status: () => 'rejected',
    version: 'latest',
    versionStatus: 'rejected',
    live: 'unchanged',
  },
  // Featuring applies to a live project whose newest version is the live one.
  publish: {
    guard: (p) => when(p.status === 'approved' && isLive(p)),
    status: () => 'published',
    featured: true,
    stamp: 'published',
    version: 'live',
    versionStatus: null,
    live: 'unchanged',
  },
  // The featured mark comes off a live site whatever its newest upload's review says: a new
  // version waiting (待审核) or refused (已拒绝) keeps that status, the live one keeps serving.
  unpublish: {
    guard: (p) => when(p.featured && isLive(p)),
    status: (p) => (p.status === 'published' ? 'approved' : p.status),
    featured: false,
    version: 'live',
    versionStatus: null,
    live: 'unchanged',
  },
  // Any live site can be taken offline at once, even while a new version waits for review.
  // Taken down is its own state (已下线), not a rejection: the owner is told the site went offline.
  takedown: {
    guard: (p) => when(isLive(p)),
    status: () => 'taken_down',
    featured: false,
    version: 'live',
    versionStatus: 'rejected',
    live: 'offline',
    rejectsNewerUpload: true,
  },
  // Taken down or never approved: going live again is review's decision, not a rollback's.
  rollback: {
    guard: (p, chosen) => {
      if (!isLive(p)) return 'rollbackOffline';
      if (chosen?.status !== 'approved') return 'rollbackNotAllowed';
      // Not a change: no comment, no audit entry, no cache to drop.
      if (chosen.id === p.liveDeploymentId) return 'rollbackAlreadyLive';
      return null;
    },
    version: 'chosen',
    versionStatus: null,
    live: 'version',
  },
};

/** What an allowed action changes, for the review service to write in its transaction. */
export interface TransitionPlan {
  project: {
    status?: ProjectStatus;
    featured?: boolean;
    /** The live version afterwards; absent: unchanged. */
    liveDeploymentId?: number | null;
    stamp?: 'approved' | 'published';
  };
  /** The version the action is about (null: the project has none), and its status afterwards. */
  deploymentId: number | null;
  versionStatus: ReviewedVersionStatus | null;
  /** The newest upload, when it too becomes rejected (if pending or rejected). */
  alsoRejectId: number | null;
  liveChanged: boolean;
}

/**
 * The changes of an action the guard allowed (policies/review.ts asks the guard first): the table's
 * entry applied to this project.
 */
export function planTransition(
  action: TransitionAction,
  project: ReviewedProject,
  chosen?: ChosenVersion,
): TransitionPlan {
  const t = TRANSITIONS[action];
  const deploymentId =
    t.version === 'latest'
      ? project.latestDeploymentId
      : t.version === 'live'
        ? project.liveDeploymentId
        : (chosen?.id ?? null);
  const change: TransitionPlan['project'] = {};
  if (t.status) change.status = t.status(project);
  if (t.featured !== undefined) change.featured = t.featured;
  if (t.stamp) change.stamp = t.stamp;
  if (t.live === 'version') change.liveDeploymentId = deploymentId;
  if (t.live === 'offline') change.liveDeploymentId = null;
  const newest = project.latestDeploymentId;
  return {
    project: change,
    deploymentId,
    versionStatus: deploymentId === null ? null : t.versionStatus,
    alsoRejectId:
      t.rejectsNewerUpload && deploymentId !== null && newest !== null && newest !== deploymentId
        ? newest
        : null,
    liveChanged: t.live !== 'unchanged',
  };
}
