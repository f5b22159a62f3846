/**
 * Cache invalidation across instances over Redis pub/sub (docs/decisions/instances.md "Cache invalidation
 * across instances"). Each instance applies a change to its own caches at once and publishes it;
 * the others drop the same entries when the message arrives (milliseconds). A message missed while
 * the subscription was down cannot be replayed, so on every (re)subscribe the instance drops all
 * it caches instead, and while it is down `listening()` is false and the caches keep entries only
 * briefly (domain/cache-lifetime.ts). A change this instance could not publish (Redis down) is
 * published again once Redis answers.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { keepWatch, reportOutages } from './redis.js';

/** live: a project's live version; settings: the platform settings; domains: the served custom domains. */
export type ClusterEvent = { kind: 'live'; projectId: number } | { kind: 'settings' } | { kind: 'domains' };

export interface InvalidationHandlers {
  /** Another instance changed something this one may have cached. */
  apply(event: ClusterEvent): void;
  /** Messages may have been missed: forget everything cached. */
  resync(): void;
  onError?(err: unknown): void;
}

export interface InvalidationBus {
  /** Tells the other instances (this one has applied the change itself). */
  publish(event: ClusterEvent): void;
  /**
   * Resolves once subscribed, so a change made after it reaches this instance; or once the first
   * attempt to reach Redis has failed: the instance then starts without, and subscribes later.
   */
  ready: Promise<void>;
  /** Whether other instances' changes reach this one now (false while the subscription is down). */
  listening(): boolean;
  close(): Promise<void>;
}

/** One process: nothing to tell anyone, and nothing made elsewhere to miss. */
export const localBus: InvalidationBus = {
  publish() {},
  ready: Promise.resolve(),
  listening: () => true,
  close: async () => {},
};

/** Changes kept for publishing once Redis is back; past this many, the pointers' TTL must do. */
const MAX_UNPUBLISHED = 10_000;

function parse(text: string): { from: string; event: ClusterEvent } | null {
  try {
    const m = JSON.parse(text) as { from?: unknown; event?: { kind?: unknown; projectId?: unknown } };
    if (typeof m.from !== 'string' || !m.event) return null;
    if (m.event.kind === 'settings') return { from: m.from, event: { kind: 'settings' } };
    if (m.event.kind === 'domains') return { from: m.from, event: { kind: 'domains' } };
    if (m.event.kind === 'live' && Number.isSafeInteger(m.event.projectId))
      return { from: m.from, event: { kind: 'live', projectId: m.event.projectId as number } };
    return null;
  } catch {
    return null;
  }
}

export function createRedisBus(
  redis: Redis,
  prefix: string,
  handlers: InvalidationHandlers,
): InvalidationBus {
  // ioredis prefixes keys, not channels: the install's prefix goes on by hand.
  const channel = `${prefix}invalidate`;
  const self = randomUUID();
  const onError = handlers.onError ?? (() => {});
  // Subscribed by hand on every connection (below), so the moment it is done is known.
  const subscriber = redis.duplicate({ autoResubscribe: false });
  keepWatch(subscriber);
  let listening = false;
  let closed = false;
  let settleReady: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    settleReady = resolve;
  });

  reportOutages(subscriber, onError);
  subscriber.on('error', () => {
    // The first attempt failed: start without Redis rather than wait for it.
    if (!listening) settleReady();
  });
  subscriber.on('close', () => {
    if (!listening) settleReady();
    listening = false;
  });
  subscriber.on('message', (ch: string, text: string) => {
    if (ch !== channel) return;
    const m = parse(text);
    if (m && m.from !== self) handlers.apply(m.event);
  });
  subscriber.on('ready', () => {
    subscriber.subscribe(channel).then(
      () => {
        if (closed || subscriber.status !== 'ready') return;
        // Whatever was published while this instance was not subscribed is lost: forget it all.
        handlers.resync();
        listening = true;
        settleReady();
      },
      (err: unknown) => {
        // Refused (an ACL, say) or cut off: start without it; the next connection tries again.
        onError(err);
        settleReady();
      },
    );
  });

  // Changes whose publish failed, sent again when the shared connection is back (one per key).
  let unpublished = new Map<string, ClusterEvent>();
  const send = (event: ClusterEvent) => {
    redis.publish(channel, JSON.stringify({ from: self, event })).catch((err: unknown) => {
      const key = event.kind === 'live' ? `live:${event.projectId}` : event.kind;
      if (unpublished.size < MAX_UNPUBLISHED) unpublished.set(key, event);
      onError(err);
    });
  };
  const resend = () => {
    const events = [...unpublished.values()];
    unpublished = new Map();
    for (const event of events) send(event);
  };
  redis.on('ready', resend);

  return {
    publish: send,
    ready,
    listening: () => listening,
    async close() {
      closed = true;
      listening = false;
      redis.off('ready', resend);
      subscriber.disconnect();
    },
  };
}
