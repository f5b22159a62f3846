/**
 * A service built over doubles of its repositories, after Immich's `newTestService`: every
 * repository method is a `vi.fn()` made the first time it is touched, so a spec sets only what the
 * rule under test reads (`repos.users.quotaOf.mockResolvedValue(…)`) and asserts what was written.
 * The database double runs a transaction's work at once with `trx`, a marker the doubles receive:
 * every repository function takes the executor first (`db` or `trx`), so a spec can tell a write
 * inside the transaction from one outside it. Integration tests over a
 * real SQLite file and PostgreSQL stay the proof of the queries (server/test/*.test.ts).
 */
import { type Mock, vi } from 'vitest';
import type { DB } from '../../src/db/database.js';
import type { Actor } from '../../src/domain/actor.js';
import type { Repositories } from '../../src/repositories/index.js';
import type { ProjectWithOwner } from '../../src/repositories/projects.js';
import { DEFAULT_SETTINGS, type PlatformSettings } from '../../src/services/settings.js';

type Doubled<T> = {
  [M in keyof T]: T[M] extends (...args: infer A) => infer R ? Mock<(...args: A) => R> : T[M];
};

/** Every table's repository, each method a mock. */
export type RepositoryDoubles = { [K in keyof Repositories]: Doubled<Repositories[K]> };

export function repositoryDoubles(): RepositoryDoubles {
  const made = new Map<PropertyKey, Record<PropertyKey, Mock>>();
  const repository = (table: PropertyKey) => {
    let methods = made.get(table);
    if (!methods) {
      const fns: Record<PropertyKey, Mock> = {};
      methods = new Proxy(fns, {
        get: (target, name) => {
          // Not a thenable: `await repos.x` must not call a mock.
          if (name === 'then') return undefined;
          target[name] ??= vi.fn();
          return target[name];
        },
      });
      made.set(table, methods);
    }
    return methods;
  };
  return new Proxy({} as RepositoryDoubles, { get: (_target, table) => repository(table) });
}

/** A database whose transactions run their work at once, handing it `trx`. */
export function databaseDouble(): { db: DB; trx: DB } {
  const trx = { double: 'transaction' } as unknown as DB;
  const db = {
    double: 'database',
    transaction: () => ({ execute: <T>(work: (trx: DB) => Promise<T>) => work(trx) }),
  } as unknown as DB;
  return { db, trx };
}

/** The settings service's reading side, over the defaults changed by `overrides`. */
export function settingsDouble(overrides: Partial<PlatformSettings> = {}) {
  const settings: PlatformSettings = { ...DEFAULT_SETTINGS, ...overrides };
  return { get: vi.fn(async () => settings) };
}

/** The audit writer: `record` is a mock. */
export function auditDouble() {
  return { record: vi.fn(async () => {}) };
}

export const anAccount: Actor = { id: 7, username: 'alice', role: 'user', via: 'session', sessionId: 1 };
export const anAdmin: Actor = { id: 1, username: 'admin', role: 'admin', via: 'session', sessionId: 2 };

/** A project row owned by `anAccount` (pending, version 11 its newest), with its owner's name. */
export function aProject(over: Partial<ProjectWithOwner> = {}): ProjectWithOwner {
  return {
    id: 5,
    owner_id: anAccount.id,
    owner_username: anAccount.username,
    approved_by_username: null,
    name: '站点',
    description: null,
    status: 'pending',
    is_public: 1,
    spa_fallback: 0,
    clean_urls: 0,
    site_name: null,
    live_deployment_id: null,
    latest_deployment_id: 11,
    featured: 0,
    view_count: 0,
    download_count: 0,
    approved_at: null,
    approved_by: null,
    published_at: null,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    search_text: '',
    name_sort_key: '',
    ...over,
  } as ProjectWithOwner;
}

export interface ServiceHarness {
  db: DB;
  trx: DB;
  repos: RepositoryDoubles;
}

/**
 * Builds a service over repository doubles: `create` receives the doubles (typed as the real
 * repositories, which is what a service asks for) and the other collaborators are the spec's.
 */
export function newTestService<S>(
  create: (deps: { db: DB; repos: Repositories }) => S,
): ServiceHarness & { sut: S } {
  const repos = repositoryDoubles();
  const { db, trx } = databaseDouble();
  return { sut: create({ db, repos: repos as unknown as Repositories }), db, trx, repos };
}
