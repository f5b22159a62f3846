/**
 * May a review action (or a rollback to a chosen version) run on a project now? The answer is the
 * transition table's guard (domain/review-transitions.ts), so the state machine is written once.
 */
import {
  type ChosenVersion,
  type ReviewedProject,
  TRANSITIONS,
  type TransitionAction,
  type TransitionRefusal,
} from '../domain/review-transitions.js';

/** null when the action may run now; else why not (a key of messages.review). */
export function transitionRefusal(
  action: TransitionAction,
  project: ReviewedProject,
  chosen?: ChosenVersion,
): TransitionRefusal | null {
  return TRANSITIONS[action].guard(project, chosen);
}

export function canTransition(
  action: TransitionAction,
  project: ReviewedProject,
  chosen?: ChosenVersion,
): boolean {
  return transitionRefusal(action, project, chosen) === null;
}
