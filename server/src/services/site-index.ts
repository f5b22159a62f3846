/**
 * What /sites and /preview serve, cached: a project's live deployment (invalidated whenever it
 * changes: review, publish, takedown, delete) and each deployment's file table (immutable, so
 * cached until evicted). The hot path answers from memory; a miss costs one or two queries.
 */
import { siteNameSkeleton } from '@sitehall/contracts';
import type { DB } from '../db/database.js';
import { isDatabaseUnavailable } from '../db/postgres-pool.js';
import { alwaysHears, type HearsChanges, maxAge } from '../domain/cache-lifetime.js';
import * as deploymentFiles from '../repositories/deployment-files.js';
import * as deploymentsTable from '../repositories/deployments.js';
import * as projects from '../repositories/projects.js';
import * as siteNames from '../repositories/site-names.js';
import {
  type CompiledSiteRules,
  compileSiteRules,
  type DeploymentIndex,
  type SiteRouting,
  type SiteRulesText,
} from '../serve/index.js';
import { siteNameFreeAt } from './site-names.js';

/** At most this many file records across all cached deployments. */
const MAX_CACHED_FILES = 200_000;
/**
 * A cached live pointer is re-read after this long even without an invalidation: a safety net for
 * changes this process did not make (another process on the same PostgreSQL, a manual fix).
 */
const LIVE_POINTER_TTL_MS = 60_000;
const MAX_LIVE_POINTERS = 100_000;
/**
 * While the database can't be reached, a cached live pointer is used whatever its age (a site
 * served before the outage stays up), and re-checked this often rather than on every request.
 * An invalidation still drops it: a takedown heard from another instance is not undone.
 */
const STALE_RECHECK_MS = 5_000;
/**
 * A pointer asked for by the fast path in the last quarter of its life is re-read in the
 * background, so a hot site's pointer never expires under traffic: an expired one sends the
 * connection fast path's requests to Fastify (each connection then stays with Node's server), which
 * made whole rounds of requests dearer and slower once a minute (docs/benchmarks.md "Serving").
 */
const REFRESH_AHEAD = 0.25;
/** Site names remembered (what each leads to, or nothing); all forgotten when full. */
const MAX_NAMES = 100_000;
/** What a name asked in an address leads to: a project (for now: `until`, a name given up), or none. */
interface NameEntry {
  projectId: number | null;
  /** When a name its project gave up stops leading to it (ms); null for a project's own name. */
  until: number | null;
  at: number;
}

export function createSiteIndex(db: DB, opts: { hearsChanges?: HearsChanges } = {}) {
  const hears = opts.hearsChanges ?? alwaysHears;
  const live = new Map<number, { deploymentId: number | null; at: number }>();
  const deployments = new Map<number, DeploymentIndex>();
  let cachedFiles = 0;
  let generation = 0;
  /** Projects whose pointer is being re-read ahead of its age limit. */
  const refreshing = new Set<number>();

  /** Re-reads a pointer still in date (peekLive), as liveOf would once it expired. */
  function refreshAhead(projectId: number): void {
    refreshing.add(projectId);
    const startedAt = generation;
    const at = Date.now();
    projects
      .livePointer(db, projectId)
      .then(async (pointer) => {
        // An invalidation that overtook the query wins, as in liveOf.
        if (startedAt !== generation) return;
        const deploymentId = pointer ?? null;
        if (live.size >= MAX_LIVE_POINTERS) live.clear();
        live.set(projectId, { deploymentId, at });
        if (deploymentId !== null) await loadDeployment(deploymentId);
      })
      // The pointer then expires as it would have; liveOf handles an outage.
      .catch(() => undefined)
      .finally(() => refreshing.delete(projectId));
  }

  const names = new Map<string, NameEntry>();

  /** A remembered name's project, null for none, undefined when it must be read again. */
  function nameFromMemory(label: string, at: number): number | null | undefined {
    const entry = names.get(label);
    if (!entry || at - entry.at > maxAge(LIVE_POINTER_TTL_MS, hears)) return undefined;
    if (entry.until !== null && at >= entry.until) return null;
    return entry.projectId;
  }

  async function loadDeployment(deploymentId: number): Promise<DeploymentIndex | null> {
    const cached = deployments.get(deploymentId);
    if (cached) {
      // Refresh its place in the LRU order.
      deployments.delete(deploymentId);
      deployments.set(deploymentId, cached);
      return cached;
    }
    const d = await deploymentsTable.servingFacts(db, deploymentId);
    if (!d) return null;
    const rows = await deploymentFiles.servingRows(db, deploymentId);
    const index: DeploymentIndex = {
      deploymentId: d.id,
      projectId: d.project_id,
      entryFile: d.entry_file,
      lastModified: new Date(d.reviewed_at ?? d.created_at),
      files: new Map(
        rows.map((r) => [
          r.path,
          { path: r.path, size: Number(r.size), mime_type: r.mime_type, sha256: r.sha256 },
        ]),
      ),
      routing: routingOf(d),
      siteName: d.site_name,
    };
    deployments.set(deploymentId, index);
    cachedFiles += index.files.size;
    for (const [id, old] of deployments) {
      if (cachedFiles <= MAX_CACHED_FILES || id === deploymentId) break;
      deployments.delete(id);
      cachedFiles -= old.files.size;
    }
    return index;
  }

  return {
    /** The live deployment of a project, or null when it is not live (or doesn't exist). */
    async liveOf(projectId: number): Promise<DeploymentIndex | null> {
      const cached = live.get(projectId);
      let deploymentId = cached?.deploymentId;
      const at = Date.now();
      if (cached === undefined || at - cached.at > maxAge(LIVE_POINTER_TTL_MS, hears)) {
        const startedAt = generation;
        let pointer: number | null | undefined;
        try {
          pointer = await projects.livePointer(db, projectId);
        } catch (err) {
          const kept = live.get(projectId);
          if (!kept || !isDatabaseUnavailable(err)) throw err;
          kept.at = Date.now() - LIVE_POINTER_TTL_MS + STALE_RECHECK_MS;
          return kept.deploymentId == null ? null : loadDeployment(kept.deploymentId);
        }
        // Live means a live deployment, whatever the newest upload's review says.
        deploymentId = pointer ?? null;
        // Don't cache an answer that an invalidation overtook while the query ran.
        if (startedAt === generation) {
          if (live.size >= MAX_LIVE_POINTERS) live.clear();
          live.set(projectId, { deploymentId, at });
        }
      }
      return deploymentId == null ? null : loadDeployment(deploymentId);
    },
    /**
     * The answer of liveOf when memory has it all (a fresh pointer and its file table), without
     * a turn of the event loop; undefined when liveOf must be asked.
     */
    peekLive(projectId: number): DeploymentIndex | null | undefined {
      const cached = live.get(projectId);
      if (!cached) return undefined;
      const age = Date.now() - cached.at;
      const limit = maxAge(LIVE_POINTER_TTL_MS, hears);
      if (age > limit) return undefined;
      if (age > limit * (1 - REFRESH_AHEAD) && !refreshing.has(projectId)) refreshAhead(projectId);
      if (cached.deploymentId === null) return null;
      return deployments.get(cached.deploymentId);
    },
    deployment: loadDeployment,
    /**
     * The project a site name in an address leads to (docs/decisions/names.md): its own name, a
     * look-alike spelling of it, or a name it gave up less than SITE_NAME_HOLD_DAYS ago; null for
     * none. The caller compares the project's name to tell serving from redirecting.
     */
    async projectOfName(label: string): Promise<number | null> {
      const at = Date.now();
      const known = nameFromMemory(label, at);
      if (known !== undefined) return known;
      const startedAt = generation;
      const row = await siteNames.lookup(db, siteNameSkeleton(label));
      const entry: NameEntry = {
        projectId: row?.project_id ?? null,
        until: row?.retired_at ? siteNameFreeAt(row.retired_at) : null,
        at,
      };
      if (startedAt === generation) {
        if (names.size >= MAX_NAMES) names.clear();
        names.set(label, entry);
      }
      return entry.until !== null && at >= entry.until ? null : entry.projectId;
    },
    /** projectOfName from memory, without a turn of the event loop; undefined when it must be asked. */
    peekName(label: string): number | null | undefined {
      return nameFromMemory(label, Date.now());
    },
    /**
     * Forgets a project's live pointer (it was approved, taken down, deleted...) and its cached
     * versions, which carry the project's routing switches (a preview reads them too).
     */
    invalidate(projectId: number): void {
      generation++;
      live.delete(projectId);
      // A rename, a delete or a name taken: what every name leads to is read again (rare events).
      names.clear();
      for (const [id, cached] of deployments) {
        if (cached.projectId !== projectId) continue;
        deployments.delete(id);
        cachedFiles -= cached.files.size;
      }
    },
    invalidateAll(): void {
      generation++;
      live.clear();
      names.clear();
    },
  };
}
export type SiteIndex = ReturnType<typeof createSiteIndex>;

/**
 * A version's routing: its _redirects and _headers (checked at upload, so they compile) and its
 * project's switches; null when it declares nothing, so it is served at today's cost.
 */
/**
 * Whether a version of a project answers deep links (`/users/42` gives index.html): the project's
 * 单页应用回退, or a 200 rewrite of the version's own `_redirects`. A client-side router's note is
 * dropped then (content-check/report.ts `reportAsServed`).
 */
export function answersDeepLinks(
  version: { site_rules: string | null },
  project: { spa_fallback: number; clean_urls: number },
): boolean {
  const routing = routingOf({
    ...version,
    spa_fallback: project.spa_fallback,
    clean_urls: project.clean_urls,
  });
  return Boolean(
    routing?.spaFallback || routing?.rules?.redirects.some((r) => r.status === 200 && !r.external),
  );
}

export function routingOf(d: {
  site_rules: string | null;
  spa_fallback: number;
  clean_urls: number;
}): SiteRouting | null {
  let rules: CompiledSiteRules | null = null;
  if (d.site_rules) {
    try {
      rules = compileSiteRules(JSON.parse(d.site_rules) as SiteRulesText);
    } catch {
      // Checked when stored; text a later, stricter parser refuses is served without its rules.
      rules = null;
    }
  }
  if (!rules && !d.spa_fallback && !d.clean_urls) return null;
  return { rules, spaFallback: Boolean(d.spa_fallback), cleanUrls: Boolean(d.clean_urls) };
}
