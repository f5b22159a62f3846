/**
 * The review state machine of docs/product.md, in one table: which action may run from which state.
 * "Live" is a project with a live deployment, whatever its newest upload's review says.
 */
import type { ProjectStatus, ReviewAction } from '@sitehall/contracts';

export interface ReviewState {
  status: ProjectStatus;
  live: boolean;
}

const RULES: Record<ReviewAction, (s: ReviewState) => boolean> = {
  // Decisions apply to the newest upload while it waits for review.
  approve: (s) => s.status === 'pending',
  reject: (s) => s.status === 'pending',
  // Featuring applies to a live project whose newest version is the live one.
  publish: (s) => s.status === 'approved' && s.live,
  unpublish: (s) => s.status === 'published' && s.live,
  // Any live site can be taken offline at once, even while a new version waits for review.
  takedown: (s) => s.live,
};

export function canTransition(action: ReviewAction, state: ReviewState): boolean {
  return RULES[action](state);
}
