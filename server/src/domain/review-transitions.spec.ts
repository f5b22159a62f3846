/**
 * The transition table alone, no database: every action from every kind of project, what the guard
 * says and what the plan changes. server/test/transitions.test.ts checks the same through the API.
 */
import { describe, expect, it } from 'vitest';
import {
  type ChosenVersion,
  planTransition,
  type ReviewedProject,
  TRANSITIONS,
  type TransitionAction,
} from './review-transitions.js';

const transitionRefusal = (action: TransitionAction, p: ReviewedProject, chosen?: ChosenVersion) =>
  TRANSITIONS[action].guard(p, chosen);
const canTransition = (action: TransitionAction, p: ReviewedProject) => transitionRefusal(action, p) === null;

const project = (p: Partial<ReviewedProject> = {}): ReviewedProject => ({
  status: 'pending',
  featured: false,
  latestDeploymentId: 2,
  liveDeploymentId: null,
  ...p,
});

const STATES: Record<string, ReviewedProject> = {
  pending: project({ latestDeploymentId: 1 }),
  'pending-while-live': project({ liveDeploymentId: 1 }),
  'pending-while-published': project({ featured: true, liveDeploymentId: 1 }),
  approved: project({ status: 'approved', latestDeploymentId: 1, liveDeploymentId: 1 }),
  published: project({ status: 'published', featured: true, latestDeploymentId: 1, liveDeploymentId: 1 }),
  rejected: project({ status: 'rejected', latestDeploymentId: 1 }),
  'rejected-but-live': project({ status: 'rejected', liveDeploymentId: 1 }),
  'rejected-while-published': project({ status: 'rejected', featured: true, liveDeploymentId: 1 }),
};

const ALLOWED: Record<string, TransitionAction[]> = {
  pending: ['approve', 'reject'],
  'pending-while-live': ['approve', 'reject', 'takedown'],
  'pending-while-published': ['approve', 'reject', 'unpublish', 'takedown'],
  approved: ['publish', 'takedown'],
  published: ['unpublish', 'takedown'],
  rejected: [],
  'rejected-but-live': ['takedown'],
  'rejected-while-published': ['unpublish', 'takedown'],
};

const REVIEW: TransitionAction[] = ['approve', 'reject', 'publish', 'unpublish', 'takedown'];

describe('review transition table', () => {
  for (const [name, state] of Object.entries(STATES)) {
    it(`from ${name} allows exactly ${ALLOWED[name]!.join(', ') || 'nothing'}`, () => {
      const allowed = REVIEW.filter((a) => canTransition(a, state));
      expect(allowed).toEqual(ALLOWED[name]);
      for (const a of REVIEW.filter((x) => !allowed.includes(x))) {
        expect(transitionRefusal(a, state)).toBe('transitionNotAllowed');
      }
    });
  }

  it('approve makes the newest upload live and approved, keeping the featured mark', () => {
    const plan = planTransition('approve', STATES['pending-while-published']!);
    expect(plan).toEqual({
      project: { status: 'published', stamp: 'approved', liveDeploymentId: 2 },
      deploymentId: 2,
      versionStatus: 'approved',
      alsoRejectId: null,
      liveChanged: true,
    });
    expect(planTransition('approve', STATES.pending!).project.status).toBe('approved');
  });

  it('reject refuses the newest upload and leaves a live version serving', () => {
    expect(planTransition('reject', STATES['pending-while-live']!)).toEqual({
      project: { status: 'rejected' },
      deploymentId: 2,
      versionStatus: 'rejected',
      alsoRejectId: null,
      liveChanged: false,
    });
  });

  it('publish and unpublish change the featured mark of the live version only', () => {
    expect(planTransition('publish', STATES.approved!)).toEqual({
      project: { status: 'published', featured: true, stamp: 'published' },
      deploymentId: 1,
      versionStatus: null,
      alsoRejectId: null,
      liveChanged: false,
    });
    expect(planTransition('unpublish', STATES.published!).project).toEqual({
      status: 'approved',
      featured: false,
    });
  });

  it('unpublish takes the featured mark off while a newer upload waits or was refused, keeping that status', () => {
    for (const name of ['pending-while-published', 'rejected-while-published']) {
      const state = STATES[name]!;
      expect(planTransition('unpublish', state)).toEqual({
        project: { status: state.status, featured: false },
        deploymentId: 1,
        versionStatus: null,
        alsoRejectId: null,
        liveChanged: false,
      });
    }
  });

  it('takedown takes the live version offline (已下线) and rejects a newer upload too', () => {
    expect(planTransition('takedown', STATES['pending-while-published']!)).toEqual({
      project: { status: 'taken_down', featured: false, liveDeploymentId: null },
      deploymentId: 1,
      versionStatus: 'rejected',
      alsoRejectId: 2,
      liveChanged: true,
    });
    expect(planTransition('takedown', STATES.approved!).alsoRejectId).toBeNull();
  });

  it('rollback needs a live project and an approved version other than the live one', () => {
    const live = STATES['pending-while-live']!;
    expect(transitionRefusal('rollback', STATES.pending!, { id: 1, status: 'approved' })).toBe(
      'rollbackOffline',
    );
    expect(transitionRefusal('rollback', live, { id: 2, status: 'pending' })).toBe('rollbackNotAllowed');
    expect(transitionRefusal('rollback', live, { id: 3, status: 'superseded' })).toBe('rollbackNotAllowed');
    expect(transitionRefusal('rollback', live, { id: 1, status: 'approved' })).toBe('rollbackAlreadyLive');
    const older = project({ status: 'approved', latestDeploymentId: 3, liveDeploymentId: 3 });
    expect(transitionRefusal('rollback', older, { id: 1, status: 'approved' })).toBeNull();
    expect(planTransition('rollback', older, { id: 1, status: 'approved' })).toEqual({
      project: { liveDeploymentId: 1 },
      deploymentId: 1,
      versionStatus: null,
      alsoRejectId: null,
      liveChanged: true,
    });
  });
});
