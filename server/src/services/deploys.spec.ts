/**
 * The digest deploy's rules over repository doubles (server/test/support/service-harness.ts); the
 * whole exchange over HTTP and real databases is server/test/deploys.test.ts and
 * server/test/deploy-attacks.test.ts.
 */
import { Readable } from 'node:stream';
import { OPEN_DEPLOYS_MAX } from '@sitehall/contracts';
import { describe, expect, it, vi } from 'vitest';
import { anAccount, newTestService, settingsDouble } from '../../test/support/service-harness.js';
import type { DB } from '../db/database.js';
import { Invalid, TooManyRequests } from '../domain/errors.js';
import type { ProjectWithOwner } from '../repositories/projects.js';
import type { BlobGate } from '../storage/blob-gate.js';
import type { BlobStore } from '../storage/index.js';
import { createDeployService, deployLease } from './deploys.js';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);
const C = 'c'.repeat(64);

function deploys(opts: { stored?: string[] } = {}) {
  const stored = new Set(opts.stored ?? []);
  const store = {
    sizes: vi.fn(
      async (hashes: string[]) => new Map(hashes.filter((h) => stored.has(h)).map((h) => [h, 10])),
    ),
    throwIfDown: vi.fn(),
  } as unknown as BlobStore;
  const quota = { beforeBody: vi.fn(async () => {}), holdForDeploy: vi.fn() };
  const project = { id: 5, owner_id: anAccount.id, latest_deployment_id: 40 } as ProjectWithOwner;
  const uploads = { target: vi.fn(async () => project), replay: vi.fn(), commitHeld: vi.fn() };
  const h = newTestService(({ db, repos }) =>
    createDeployService({
      db,
      deploys: repos.deploys,
      leases: repos.leases,
      store,
      gate: { deleteUnused: vi.fn(async () => 0) } as unknown as BlobGate<DB>,
      settings: settingsDouble(),
      quota: quota as never,
      uploads: uploads as never,
      dataDir: '/nonexistent',
    }),
  );
  h.repos.deploys.openOf.mockResolvedValue({ n: 0, firstExpiry: null });
  h.repos.deploys.hashesOfVersion.mockResolvedValue(new Set());
  h.repos.deploys.ownedHashes.mockResolvedValue(new Set());
  h.repos.deploys.insertWithinCap.mockResolvedValue(null);
  h.repos.leases.leaseBlobs.mockResolvedValue(undefined as never);
  h.repos.leases.releaseBlobs.mockResolvedValue(undefined as never);
  return { ...h, quota, uploads };
}

describe('deploy service', () => {
  it('opens nothing for a manifest equal to the newest version’s, and says which version it is', async () => {
    const { sut, repos, quota } = deploys();
    repos.deploys.manifestOfVersion.mockResolvedValue({
      version: 3,
      files: new Map([
        ['index.html', A],
        ['a.css', B],
      ]),
    });
    const started = await sut.start(anAccount, { project_id: 5, files: { 'a.css': B, 'index.html': A } });
    expect(started).toEqual({ deploy_id: null, required: [], unchanged_version: 3 });
    expect(repos.deploys.insertWithinCap).not.toHaveBeenCalled();
    expect(repos.leases.leaseBlobs).not.toHaveBeenCalled();
    expect(quota.beforeBody).not.toHaveBeenCalled();
  });

  it('asks only for contents the owner’s versions do not hold in the store, leasing every hash first', async () => {
    const { sut, db, repos } = deploys({ stored: [A, C] });
    // The owner's newest version holds A; C is in the store but only someone else's.
    repos.deploys.hashesOfVersion.mockResolvedValue(new Set([A]));
    repos.deploys.manifestOfVersion.mockResolvedValue({ version: 3, files: new Map([['index.html', A]]) });
    const started = await sut.start(anAccount, {
      project_id: 5,
      files: { 'index.html': A, 'a.css': B, 'b.css': C },
    });
    expect(started.deploy_id).toEqual(expect.any(String));
    expect(started.required.sort()).toEqual([B, C]);
    expect(repos.leases.leaseBlobs).toHaveBeenCalledWith(
      db,
      deployLease(started.deploy_id!),
      expect.arrayContaining([A, B, C]),
      expect.any(String),
    );
    expect(repos.leases.leaseBlobs.mock.invocationCallOrder[0]).toBeLessThan(
      repos.deploys.insertWithinCap.mock.invocationCallOrder[0]!,
    );
  });

  it('refuses a deploy past the open ones an account may have, leasing nothing', async () => {
    const { sut, repos } = deploys();
    const inFiveMinutes = new Date(Date.now() + 5 * 60_000).toISOString();
    repos.deploys.openOf.mockResolvedValue({ n: OPEN_DEPLOYS_MAX, firstExpiry: inFiveMinutes });
    const refusal = await sut.start(anAccount, { files: { 'index.html': A } }).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(TooManyRequests);
    expect((refusal as TooManyRequests).retryAfterSeconds).toBeGreaterThan(200);
    expect(repos.leases.leaseBlobs).not.toHaveBeenCalled();
  });

  it('refuses the bytes of a content its manifest does not name, before reading them', async () => {
    const { sut, repos } = deploys();
    const started = await sut.start(anAccount, { files: { 'index.html': A } });
    repos.deploys.openById.mockResolvedValue({ id: started.deploy_id, project_id: null } as never);
    const body = Readable.from([Buffer.from('x')]);
    await expect(sut.receiveFile(anAccount, started.deploy_id!, B, body)).rejects.toBeInstanceOf(Invalid);
    expect(body.readableDidRead).toBe(false);
  });
});
