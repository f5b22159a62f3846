/**
 * May a review action (or a rollback to a chosen version) run on a project now? The answer is the
 * transition table's guard (domain/review-transitions.ts), so the state machine is written once.
 */
import type { ProjectAbilities, ReviewAction } from '@sitehall/contracts';
import type { Actor } from '../domain/actor.js';
import {
  type ChosenVersion,
  type ReviewedProject,
  TRANSITIONS,
  type TransitionAction,
  type TransitionRefusal,
} from '../domain/review-transitions.js';
import { projectPolicy } from './project.js';

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

/**
 * The review actions the actor may take on the project now, sent with every project
 * (ProjectDto.abilities): review is the admins', and each action's guard decides the rest.
 */
export function reviewAbilities(actor: Actor, project: ReviewedProject): ProjectAbilities {
  const may = (action: ReviewAction) => actor.role === 'admin' && canTransition(action, project);
  return {
    approve: may('approve'),
    reject: may('reject'),
    publish: may('publish'),
    unpublish: may('unpublish'),
    takedown: may('takedown'),
  };
}

/** May the actor make this version live again now (DeploymentDto.abilities.rollback)? */
export function rollbackAbility(
  actor: Actor,
  project: ReviewedProject & { ownerId: number },
  version: ChosenVersion,
): boolean {
  return (
    projectPolicy.rollback(actor, { owner_id: project.ownerId }) &&
    canTransition('rollback', project, version)
  );
}
