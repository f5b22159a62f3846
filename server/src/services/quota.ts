/**
 * Each account's storage quota and upload rate (docs/decisions/uploads.md "Storage quota and upload
 * rate"). An upload is checked three times: before its body is read (the declared length, and the
 * hourly count), after extraction (its real stored size, before anything is stored), and inside
 * the commit's transaction with the account's row held, so uploads at the same moment, on any
 * instance, are counted one after the other and can't pass the limits together. Used space is the
 * account's versions plus what its unfinished digest deploys hold, from their first byte.
 */
import { format, formatBytes, leastStoredBytes, messages, type StorageUsageDto } from '@sitehall/contracts';
import type { DB } from '../db/database.js';
import type { Actor } from '../domain/actor.js';
import { TooLarge, TooManyRequests } from '../domain/errors.js';
import type { Repositories } from '../repositories/index.js';
import type { SettingsService } from './settings.js';

const m = messages.project;
const HOUR_MS = 3_600_000;

export function createQuotaService(deps: {
  db: DB;
  repos: Pick<Repositories, 'users' | 'deployments' | 'deploys' | 'uploadEvents'>;
  settings: Pick<SettingsService, 'get'>;
}) {
  const { db, settings } = deps;
  const { users, deployments, deploys, uploadEvents } = deps.repos;

  /** The account's versions, and the bytes its unfinished deploys hold. */
  async function usedBytes(executor: DB, ownerId: number): Promise<number> {
    const [versions, held] = await Promise.all([
      deployments.usedBytes(executor, ownerId),
      deploys.heldBytes(executor, ownerId),
    ]);
    return versions + held;
  }

  async function quotaOf(own: number | null | undefined): Promise<number> {
    return own ?? (await settings.get()).userStorageBytes;
  }

  function refuse(template: string, used: number, quota: number, needed: number): never {
    throw new TooLarge(
      format(template, { used: formatBytes(used), quota: formatBytes(quota), needed: formatBytes(needed) }),
      'files',
    );
  }

  /** Refuses an upload that would make the account's used space pass its quota. */
  async function checkSpace(ownerId: number, needed: number, own: number | null | undefined, trx?: DB) {
    const quota = await quotaOf(own);
    const used = await usedBytes(trx ?? db, ownerId);
    if (used + needed > quota) refuse(m.storageQuotaExceeded, used, quota, needed);
  }

  /** Refuses the account's upload over its hourly limit (admins have none), with Retry-After. */
  async function checkRate(actor: Actor, at: number, trx?: DB) {
    if (actor.role === 'admin') return;
    const limit = (await settings.get()).uploadsPerHour;
    if (limit === 0) return;
    const nth = await uploadEvents.nthSince(trx ?? db, actor.id, new Date(at - HOUR_MS).toISOString(), limit);
    if (nth === undefined) return;
    const waitSeconds = Math.max(1, Math.ceil((Date.parse(nth) + HOUR_MS - at) / 1000));
    throw new TooManyRequests(
      format(m.uploadsPerHourExceeded, { n: limit, minutes: Math.ceil(waitSeconds / 60) }),
      waitSeconds,
    );
  }

  return {
    /** GET /api/projects/my: what the account's projects take, and its quota. */
    async usage(userId: number): Promise<StorageUsageDto> {
      const [used, own] = await Promise.all([usedBytes(db, userId), users.quotaOf(db, userId)]);
      return { used_bytes: used, quota_bytes: await quotaOf(own) };
    },

    /**
     * For the admin user list: each listed account's used space, in one query for the page (a
     * subquery per row would also run, on PostgreSQL, for the rows an offset skips), and the
     * platform's quota for accounts without their own.
     */
    async ofAccounts(ids: readonly number[]) {
      const [used, held, settingsNow] = await Promise.all([
        deployments.usedBytesByOwner(db, ids),
        deploys.heldBytesByOwner(db, ids),
        settings.get(),
      ]);
      for (const [id, bytes] of held) used.set(id, (used.get(id) ?? 0) + bytes);
      return { used, platformQuota: settingsNow.userStorageBytes };
    },

    /**
     * Before the body is read: the hourly limit, and a declared length that can't fit in what is
     * left even allowing for the framing around the files.
     */
    async beforeBody(actor: Actor, ownerId: number, contentLength: string | undefined) {
      await checkRate(actor, Date.now());
      const declared = Number(contentLength);
      if (!contentLength || !Number.isFinite(declared)) return;
      const atLeast = leastStoredBytes(declared);
      const quota = await quotaOf(await users.quotaOf(db, ownerId));
      const used = await usedBytes(db, ownerId);
      if (used + atLeast > quota) refuse(m.storageQuotaExceededDeclared, used, quota, declared);
    },

    /** After extraction, before anything is stored: the upload's real size. */
    async beforeStoring(ownerId: number, needed: number) {
      await checkSpace(ownerId, needed, await users.quotaOf(db, ownerId));
    },

    /**
     * A digest deploy's bytes, held against the owner's quota before they are written: with the
     * owner's row held (as a commit holds it), refuses them with 413 when the used space, what
     * every unfinished deploy holds included, would pass the quota, else runs `add` (which counts
     * them on the deploy) in the same transaction. So PUTs at the same moment, into any of the
     * account's deploys, through any instance, can't pass the quota together. `needed` is what
     * the message names (the whole file, when this is a part of it).
     */
    async holdForDeploy<T>(
      ownerId: number,
      bytes: number,
      needed: number,
      add: (trx: DB) => Promise<T>,
      /** What the same request holds already: counted, but not named as used in the message. */
      heldByRequest = 0,
    ) {
      return db.transaction().execute(async (trx) => {
        const own = await users.lockQuota(trx, ownerId);
        const quota = await quotaOf(own);
        const used = await usedBytes(trx, ownerId);
        if (used + bytes > quota) refuse(m.storageQuotaExceeded, used - heldByRequest, quota, needed);
        return add(trx);
      });
    },

    /**
     * In the commit's transaction, first: holds the owner's row, checks both limits again against
     * everything committed so far, and logs the upload. The hourly limit applies to the uploader,
     * who is the owner unless an admin (who has no such limit) uploads to someone's project. An
     * owner that is gone is left to the commit's own checks (they answer 401 or 404).
     */
    async admit(trx: DB, actor: Actor, ownerId: number, needed: number, at: string) {
      const own = await users.lockQuota(trx, ownerId);
      if (own === undefined) return;
      const now = Date.parse(at);
      await checkRate(actor, now, trx);
      await checkSpace(ownerId, needed, own, trx);
      await uploadEvents.record(trx, actor.id, at, new Date(now - HOUR_MS).toISOString());
    },
  };
}
export type QuotaService = ReturnType<typeof createQuotaService>;
