/**
 * Which server processes are alive (docs/decisions/instances.md "Leftover sweep"). Every process has an id
 * `i_{host}_{pid}_{random}`, names its staging folder and its blob leases after it, and renews a
 * heartbeat row (`instance:{id}` in job_leases) every 30 s. Another process's leftovers may be
 * removed once that process is gone: on the same host its pid no longer runs, anywhere its
 * heartbeat is over two minutes old. No one waits an hour after a kill -9.
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { DB } from '../db/database.js';
import type { LeasesRepository } from '../repositories/leases.js';

export const HEARTBEAT_MS = 30_000;
/** A heartbeat missed this long means the instance is gone (four beats missed). */
export const HEARTBEAT_TTL_MS = 2 * 60_000;

const ID = /^i_([A-Za-z0-9-]{1,63})_(\d{1,10})_([0-9a-f]{8})$/;

/** The host name as it may appear in an id (and so in a folder name). */
function hostTag(host = os.hostname()): string {
  return host.replace(/[^A-Za-z0-9-]/g, '-').slice(0, 63) || 'host';
}

export function newInstanceId(): string {
  return `i_${hostTag()}_${process.pid}_${randomBytes(4).toString('hex')}`;
}

export function isInstanceId(name: string): boolean {
  return ID.test(name);
}

/** The instance that wrote a blob lease (`{instance}/{uuid}`), when it says. */
export function leaseOwner(uploadId: string): string | null {
  const owner = uploadId.split('/')[0] ?? '';
  return isInstanceId(owner) ? owner : null;
}

function pidRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it runs, as another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export class Instances {
  readonly #host = hostTag();

  constructor(
    private readonly db: DB,
    private readonly leases: Pick<LeasesRepository, 'heartbeat' | 'liveInstances' | 'endInstance'>,
    readonly self: string = newInstanceId(),
  ) {}

  /** Renews this process's heartbeat. */
  heartbeat(): Promise<void> {
    return this.leases.heartbeat(this.db, this.self, new Date(Date.now() + HEARTBEAT_TTL_MS).toISOString());
  }

  /** Removes the heartbeat at a clean shutdown: this instance holds nothing any more. */
  end(): Promise<void> {
    return this.leases.endInstance(this.db, this.self);
  }

  /** A snapshot: whether an instance id belongs to a running process. */
  async aliveNow(): Promise<(id: string) => boolean> {
    const live = await this.leases.liveInstances(this.db, new Date().toISOString());
    return (id) => {
      if (id === this.self) return true;
      const m = ID.exec(id);
      if (!m) return false;
      if (m[1] === this.#host && !pidRuns(Number(m[2]))) return false;
      return live.has(id);
    };
  }
}
