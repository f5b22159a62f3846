/**
 * The review service's rules over repository doubles (server/test/support/service-harness.ts);
 * the transitions over real databases, races included, are server/test/review.test.ts and
 * server/test/transitions.test.ts.
 */
import { describe, expect, it, vi } from 'vitest';
import {
  anAccount,
  anAdmin,
  auditDouble,
  newTestService,
  aProject as project,
} from '../../test/support/service-harness.js';
import type { ProjectRow } from '../db/types.js';
import { Conflict, Invalid, NotFound } from '../domain/errors.js';
import { createReviewService } from './review.js';

const meta = { ip: '203.0.113.9', userAgent: 'spec' };

function review(row: ProjectRow | undefined) {
  const audit = auditDouble();
  const events = { liveChanged: vi.fn() };
  const h = newTestService(({ db, repos }) => createReviewService({ db, repos, audit, events }));
  h.repos.projects.byIdForChange.mockResolvedValue(row as never);
  h.repos.projects.update.mockResolvedValue(undefined);
  h.repos.deployments.markReviewed.mockResolvedValue(true as never);
  h.repos.reviewComments.add.mockResolvedValue(undefined);
  return { ...h, audit, events };
}

describe('review service', () => {
  it('approves a pending version in one transaction: version, project, comment and audit; the live site changes', async () => {
    const { sut, repos, trx, audit, events } = review(project());
    await sut.decide(anAdmin, 5, 'approve', '  好  ', meta);
    expect(repos.deployments.markReviewed).toHaveBeenCalledWith(
      trx,
      11,
      expect.objectContaining({ status: 'approved', by: anAdmin.id, comment: '好' }),
    );
    const [executor, id, patch] = repos.projects.update.mock.calls[0]!;
    expect([executor, id]).toEqual([trx, 5]);
    expect(patch).toMatchObject({ status: 'approved', live_deployment_id: 11, approved_by: anAdmin.id });
    expect(repos.reviewComments.add).toHaveBeenCalledWith(
      trx,
      expect.objectContaining({ action: 'approve' }),
    );
    expect(audit.record).toHaveBeenCalledWith(
      expect.objectContaining({ action: 'review.approve', targetId: 5 }),
      trx,
    );
    expect(events.liveChanged).toHaveBeenCalledWith(5);
  });

  it('refuses a rejection without a reason before touching anything', async () => {
    const { sut, repos } = review(project());
    await expect(sut.decide(anAdmin, 5, 'reject', '   ', meta)).rejects.toBeInstanceOf(Invalid);
    expect(repos.projects.byIdForChange).not.toHaveBeenCalled();
  });

  it('answers 404 for a project that is gone, and 409 for an action its state does not allow', async () => {
    await expect(review(undefined).sut.decide(anAdmin, 5, 'approve', undefined, meta)).rejects.toBeInstanceOf(
      NotFound,
    );
    const { sut, repos, events } = review(project({ status: 'rejected', latest_deployment_id: 11 }));
    await expect(sut.decide(anAdmin, 5, 'unpublish', undefined, meta)).rejects.toBeInstanceOf(Conflict);
    expect(repos.projects.update).not.toHaveBeenCalled();
    expect(events.liveChanged).not.toHaveBeenCalled();
  });

  it('rolls back only to an approved version of the same project', async () => {
    const live = project({ status: 'published', live_deployment_id: 12, latest_deployment_id: 12 });
    const { sut, repos } = review(live);
    repos.deployments.byId.mockResolvedValueOnce({
      id: 99,
      project_id: 6,
      status: 'approved',
      version: 1,
    } as never);
    await expect(sut.rollback(anAccount, 5, 99, meta)).rejects.toBeInstanceOf(NotFound);
    repos.deployments.byId.mockResolvedValueOnce({
      id: 10,
      project_id: 5,
      status: 'approved',
      version: 1,
    } as never);
    await sut.rollback(anAccount, 5, 10, meta);
    expect(repos.projects.update.mock.calls[0]![2]).toMatchObject({ live_deployment_id: 10 });
  });
});
