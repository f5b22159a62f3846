/**
 * Project management's rules over repository doubles (server/test/support/service-harness.ts);
 * the same calls over HTTP and real databases are server/test/projects.test.ts and
 * server/test/deletes.test.ts.
 */
import { describe, expect, it, vi } from 'vitest';
import {
  anAccount,
  anAdmin,
  newTestService,
  aProject as project,
} from '../../test/support/service-harness.js';
import { NotFound } from '../domain/errors.js';
import type { ProjectWithOwner } from '../repositories/projects.js';
import type { BlobStore } from '../storage/index.js';
import { createProjectService } from './projects.js';

const meta = { ip: '203.0.113.9', userAgent: 'spec' };

function projects(row: ProjectWithOwner | undefined) {
  const audit = {
    record: vi.fn(async () => {}),
    deletedRecently: vi.fn(async () => false),
  };
  const events = { liveChanged: vi.fn(), renamed: vi.fn() };
  const gate = {
    run: vi.fn((work: () => Promise<unknown>) => work()),
    deleteUnused: vi.fn(async (_hashes: Iterable<string>) => 0),
  };
  const siteNames = { claim: vi.fn(async () => {}) };
  const h = newTestService(({ db, repos }) =>
    createProjectService({
      db,
      repos,
      store: {} as BlobStore,
      quota: { usage: vi.fn() } as never,
      audit: audit as never,
      gate: gate as never,
      events,
      siteNames,
    }),
  );
  h.repos.projects.byId.mockResolvedValue(row as never);
  h.repos.projects.byIdForChange.mockResolvedValue(row as never);
  h.repos.projects.update.mockResolvedValue(undefined);
  h.repos.deployments.byId.mockResolvedValue(undefined);
  h.repos.deployments.ofProject.mockResolvedValue([] as never);
  h.repos.reviewComments.ofProject.mockResolvedValue([] as never);
  return { ...h, audit, events, gate, siteNames };
}

describe('project service', () => {
  it('an edit audits only the fields whose value changed, and answers with the detail’s rows', async () => {
    const { sut, audit, repos, trx, events } = projects(project({ description: '旧的' }));
    const detail = await sut.updateMeta(
      anAccount,
      5,
      { name: '站点', description: '新的', is_public: true, spa_fallback: false, clean_urls: false },
      meta,
    );
    expect(repos.projects.update).toHaveBeenCalledWith(
      trx,
      5,
      expect.objectContaining({ description: '新的' }),
    );
    expect(audit.record).toHaveBeenCalledTimes(1);
    // In the edit's transaction, so an edit the project's deletion overtook is not in the log.
    expect(audit.record).toHaveBeenCalledWith(
      expect.objectContaining({ action: 'project.update', detail: { fields: ['description'] } }),
      trx,
    );
    // The visibility switch was sent: the serving caches forget the project.
    expect(events.liveChanged).toHaveBeenCalledWith(5);
    expect(detail.project.id).toBe(5);
    expect(detail.files).toEqual([]);
  });

  it('an edit that changes nothing writes no audit entry', async () => {
    const { sut, audit } = projects(project());
    await sut.updateMeta(anAccount, 5, { name: '站点' }, meta);
    expect(audit.record).not.toHaveBeenCalled();
  });

  it('another account’s project looks missing (404), to an edit and to a delete', async () => {
    const { sut, repos, gate } = projects(project({ owner_id: 99 }));
    await expect(sut.updateMeta(anAccount, 5, { name: 'x' }, meta)).rejects.toBeInstanceOf(NotFound);
    await expect(sut.remove(anAccount, 5, meta)).rejects.toBeInstanceOf(NotFound);
    expect(repos.projects.update).not.toHaveBeenCalled();
    expect(gate.run).not.toHaveBeenCalled();
  });

  it('a delete retires the names, removes the project and audits it in one transaction, then frees the blobs', async () => {
    const { sut, repos, audit, gate, trx, events } = projects(project());
    repos.deploymentFiles.hashesOfProject.mockResolvedValue(['a'.repeat(64)]);
    repos.siteNames.retireOfProject.mockResolvedValue(undefined);
    repos.projects.remove.mockResolvedValue(true);
    await sut.remove(anAdmin, 5, meta);
    expect(repos.siteNames.retireOfProject).toHaveBeenCalledWith(trx, 5, expect.any(String));
    expect(repos.projects.remove).toHaveBeenCalledWith(trx, 5);
    expect(audit.record).toHaveBeenCalledWith(expect.objectContaining({ action: 'project.delete' }), trx);
    expect(events.liveChanged).toHaveBeenCalledWith(5);
    expect(gate.deleteUnused).toHaveBeenCalledWith(['a'.repeat(64)]);
  });

  it('a repeated delete of a project this account just deleted answers success', async () => {
    const { sut, audit } = projects(undefined);
    audit.deletedRecently.mockResolvedValue(true);
    await expect(sut.remove(anAccount, 5, meta)).resolves.toBeUndefined();
    expect(audit.deletedRecently).toHaveBeenCalledWith(anAccount.id, 5, expect.any(Number));
  });
});
