/**
 * The quota's rules over repository doubles (server/test/support/service-harness.ts); the queries
 * they stand for, and the races, are tested over real databases in server/test/quota.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { anAccount, anAdmin, newTestService, settingsDouble } from '../../test/support/service-harness.js';
import { TooLarge, TooManyRequests } from '../domain/errors.js';
import { createQuotaService } from './quota.js';

const MB = 1024 * 1024;

function quota(settings = settingsDouble({ userStorageBytes: 100 * MB, uploadsPerHour: 3 })) {
  const h = newTestService(({ db, repos }) => createQuotaService({ db, repos, settings }));
  // An account with no quota of its own, nothing stored, no uploads this hour.
  h.repos.users.quotaOf.mockResolvedValue(null);
  h.repos.users.lockQuota.mockResolvedValue(null);
  h.repos.deployments.usedBytes.mockResolvedValue(0);
  h.repos.deploys.heldBytes.mockResolvedValue(0);
  h.repos.uploadEvents.nthSince.mockResolvedValue(undefined);
  h.repos.uploadEvents.record.mockResolvedValue(undefined);
  return h;
}

describe('quota service', () => {
  it('counts versions and what unfinished deploys hold, against the platform quota or the account’s own', async () => {
    const { sut, repos } = quota();
    repos.deployments.usedBytes.mockResolvedValue(30 * MB);
    repos.deploys.heldBytes.mockResolvedValue(5 * MB);
    expect(await sut.usage(anAccount.id)).toEqual({ used_bytes: 35 * MB, quota_bytes: 100 * MB });
    repos.users.quotaOf.mockResolvedValue(500 * MB);
    expect(await sut.usage(anAccount.id)).toEqual({ used_bytes: 35 * MB, quota_bytes: 500 * MB });
  });

  it('refuses before the body a declared length that cannot fit even allowing for the framing', async () => {
    const { sut, repos } = quota();
    repos.deployments.usedBytes.mockResolvedValue(90 * MB);
    // 10 MB left: a 10.5 MB body may be 5% archive framing plus 1 MB multipart: read.
    await expect(sut.beforeBody(anAccount, anAccount.id, String(10.5 * MB))).resolves.toBeUndefined();
    await expect(sut.beforeBody(anAccount, anAccount.id, String(20 * MB))).rejects.toBeInstanceOf(TooLarge);
    // No declared length: the limits are checked as the bytes arrive and after extraction.
    await expect(sut.beforeBody(anAccount, anAccount.id, undefined)).resolves.toBeUndefined();
  });

  it('refuses the upload past the hourly limit with the seconds until one leaves the hour; admins have none', async () => {
    const { sut, repos } = quota();
    const third = new Date(Date.now() - 50 * 60_000).toISOString();
    repos.uploadEvents.nthSince.mockResolvedValue(third);
    const refusal = await sut.beforeBody(anAccount, anAccount.id, undefined).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(TooManyRequests);
    const wait = (refusal as TooManyRequests).retryAfterSeconds!;
    expect(wait).toBeGreaterThan(9 * 60 - 5);
    expect(wait).toBeLessThanOrEqual(10 * 60);
    expect(repos.uploadEvents.nthSince.mock.calls[0]![3]).toBe(3);
    await expect(sut.beforeBody(anAdmin, anAccount.id, undefined)).resolves.toBeUndefined();
  });

  it('asks no hourly count when the limit is off', async () => {
    const { sut, repos } = quota(settingsDouble({ userStorageBytes: 100 * MB, uploadsPerHour: 0 }));
    await sut.beforeBody(anAccount, anAccount.id, undefined);
    expect(repos.uploadEvents.nthSince).not.toHaveBeenCalled();
  });

  it('admits in the commit’s transaction: holds the owner, checks both limits there, and logs the upload', async () => {
    const { sut, repos, trx } = quota();
    repos.deployments.usedBytes.mockResolvedValue(60 * MB);
    const at = new Date().toISOString();
    await sut.admit(trx, anAccount, anAccount.id, 40 * MB, at);
    expect(repos.users.lockQuota).toHaveBeenCalledWith(trx, anAccount.id);
    expect(repos.deployments.usedBytes).toHaveBeenCalledWith(trx, anAccount.id);
    expect(repos.uploadEvents.nthSince.mock.calls[0]![0]).toBe(trx);
    expect(repos.uploadEvents.record).toHaveBeenCalledWith(trx, anAccount.id, at, expect.any(String));
    await expect(sut.admit(trx, anAccount, anAccount.id, 41 * MB, at)).rejects.toBeInstanceOf(TooLarge);
  });

  it('leaves an owner deleted meanwhile to the commit’s own checks, logging nothing', async () => {
    const { sut, repos, trx } = quota();
    repos.users.lockQuota.mockResolvedValue(undefined);
    await sut.admit(trx, anAccount, anAccount.id, 1, new Date().toISOString());
    expect(repos.uploadEvents.record).not.toHaveBeenCalled();
  });

  it('holds a deploy’s bytes only when they fit, counting them in the same transaction', async () => {
    const { sut, repos, trx } = quota();
    repos.deployments.usedBytes.mockResolvedValue(95 * MB);
    repos.deploys.heldBytes.mockResolvedValue(4 * MB);
    const added: unknown[] = [];
    const add = async (t: unknown) => {
      added.push(t);
      return true;
    };
    expect(await sut.holdForDeploy(anAccount.id, MB, MB, add)).toBe(true);
    expect(added).toEqual([trx]);
    await expect(sut.holdForDeploy(anAccount.id, MB + 1, 3 * MB, add)).rejects.toThrow(/3 MB/);
    expect(added).toHaveLength(1);
  });
});
