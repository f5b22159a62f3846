/**
 * Site names (docs/decisions/names.md): who may take which name, and when. A name is held by its
 * look-alike skeleton, so `my-club` is refused while `myclub` is someone's; a name given up (a
 * rename, a deleted project) stays its project's for SITE_NAME_HOLD_DAYS and is then free.
 */
import {
  format,
  messages,
  SITE_NAME_HOLD_DAYS,
  SITE_NAME_MAX,
  SITE_NAME_RENAMES_MAX,
  type SiteNameDto,
  siteNameFrom,
  siteNameProblem,
  siteNameSkeleton,
} from '@sitehall/contracts';
import type { DB } from '../db/database.js';
import { now } from '../db/database.js';
import type { Dialect } from '../db/dialect.js';
import { Conflict, TooManyRequests } from '../domain/errors.js';
import type { Repositories } from '../repositories/index.js';
import type { SiteNameRow } from '../repositories/site-names.js';

const m = messages.project;
const DAY_MS = 86_400_000;

/** When a name given up at `retiredAt` is free for anyone (ms since the epoch). */
export function siteNameFreeAt(retiredAt: string): number {
  return Date.parse(retiredAt) + SITE_NAME_HOLD_DAYS * DAY_MS;
}

/** Why `projectId` (null: a new project) can't take `name`, given the row of its skeleton; null if it can. */
function refusal(
  row: SiteNameRow | undefined,
  name: string,
  projectId: number | null,
  at: string,
): string | null {
  if (!row) return null;
  if (projectId !== null && row.project_id === projectId) return null;
  if (row.retired_at !== null) {
    if (siteNameFreeAt(row.retired_at) <= Date.parse(at)) return null;
    if (row.name === name) return format(m.siteNameHeld, { name, days: SITE_NAME_HOLD_DAYS });
  }
  if (row.name === name) return format(m.siteNameTaken, { name });
  return format(m.siteNameLookAlike, { name, other: row.name });
}

/** The refusal of losing a race for a name to a concurrent claim. */
export function nameRaceLost(name: string): Conflict {
  return new Conflict(format(m.siteNameTaken, { name }), 'site_name');
}

export function createSiteNameService(deps: {
  db: DB;
  dialect: Dialect;
  repos: Pick<Repositories, 'siteNames'>;
}) {
  const { db, dialect } = deps;
  const { siteNames } = deps.repos;

  /**
   * Refuses (429) a rename past the account's SITE_NAME_RENAMES_MAX within the hold period: every
   * name given up stays its site's for SITE_NAME_HOLD_DAYS, so an account renaming in a loop held
   * a name per request, every short or brand name within minutes (outside review r5). A project's
   * first name, its name again, and one of its own it gave up (nothing more is held) pass.
   */
  async function checkRenames(
    trx: DB,
    row: SiteNameRow | undefined,
    name: string,
    projectId: number | null,
    at: string,
  ): Promise<void> {
    if (projectId === null || row?.project_id === projectId) return;
    const since = new Date(Date.parse(at) - SITE_NAME_HOLD_DAYS * DAY_MS).toISOString();
    const renames = await siteNames.renamesOfOwner(trx, projectId, since);
    if (renames.current === null || renames.current === name || renames.n < SITE_NAME_RENAMES_MAX) return;
    const wait = (siteNameFreeAt(renames.oldest ?? at) - Date.parse(at)) / 1000;
    throw new TooManyRequests(
      format(m.siteNameRenamesExceeded, {
        n: SITE_NAME_RENAMES_MAX,
        hold: SITE_NAME_HOLD_DAYS,
        days: Math.max(1, Math.ceil(wait / 86_400)),
      }),
      wait,
    );
  }

  return {
    /**
     * Refuses (409) a name another project holds, without a lock: an upload asks before its files
     * are read; the claim in the commit's transaction decides. A rename past the account's limit: 429.
     */
    async check(name: string, projectId: number | null): Promise<void> {
      const row = await siteNames.bySkeleton(db, siteNameSkeleton(name));
      const at = now();
      const refused = refusal(row, name, projectId, at);
      if (refused) throw new Conflict(refused, 'site_name');
      await checkRenames(db, row, name, projectId, at);
    },

    /**
     * Gives `name` to the project inside the caller's transaction (its other names retire), or
     * refuses with 409. On PostgreSQL the skeleton's row is locked; a concurrent first claim of a
     * new skeleton fails on the primary key instead (siteNames.isNameRace: the caller's 409).
     */
    async claim(trx: DB, projectId: number, name: string, at: string): Promise<void> {
      const skeleton = siteNameSkeleton(name);
      const row = await siteNames.bySkeleton(trx, skeleton, dialect);
      const refused = refusal(row, name, projectId, at);
      if (refused) throw new Conflict(refused, 'site_name');
      if (row && row.project_id === projectId && row.name === name && row.retired_at === null) return;
      await checkRenames(trx, row, name, projectId, at);
      await siteNames.take(trx, { skeleton, name, projectId, at }, row);
    },

    /**
     * The form's question: can this project (or a new one) have `name`; or, from a project name
     * (its pinyin already, when it is Chinese), a name that is free now.
     */
    async answer(q: { name?: string; fromAscii?: string; projectId: number | null }): Promise<SiteNameDto> {
      if (q.name !== undefined) {
        const name = q.name.trim().toLowerCase();
        const problem = siteNameProblem(name);
        if (problem) return { name, available: false, message: problem };
        const row = await siteNames.bySkeleton(db, siteNameSkeleton(name));
        const refused = refusal(row, name, q.projectId, now());
        return { name, available: refused === null, message: refused };
      }
      const base = q.fromAscii === undefined ? null : siteNameFrom(q.fromAscii);
      if (!base) return { name: null, available: false, message: null };
      for (let n = 1; n <= 20; n++) {
        const suffix = n === 1 ? '' : `-${n}`;
        const candidate = `${base.slice(0, SITE_NAME_MAX - suffix.length).replace(/-+$/, '')}${suffix}`;
        if (siteNameProblem(candidate)) continue;
        const row = await siteNames.bySkeleton(db, siteNameSkeleton(candidate));
        if (refusal(row, candidate, q.projectId, now()) === null)
          return { name: candidate, available: true, message: null };
      }
      return { name: null, available: false, message: null };
    },
  };
}
export type SiteNameService = ReturnType<typeof createSiteNameService>;
