/**
 * Cache invalidation across instances over Redis pub/sub (docs/decisions.md "Cache invalidation
 * across instances"). Each instance applies a change to its own caches at once and publishes it;
 * the others drop the same entries when the message arrives (milliseconds). A message missed while
 * the subscription was down cannot be replayed, so on every (re)subscribe the instance drops all
 * it caches instead; the live-pointer TTL in services/site-index.ts stays as the last safety net.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

export type ClusterEvent = { kind: 'live'; projectId: number } | { kind: 'settings' };

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
  /** Resolves once subscribed (retried until Redis answers), so a change made after it reaches this instance. */
  ready: Promise<void>;
  close(): Promise<void>;
}

/** One process: nothing to tell anyone. */
export const localBus: InvalidationBus = { publish() {}, ready: Promise.resolve(), close: async () => {} };

function parse(text: string): { from: string; event: ClusterEvent } | null {
  try {
    const m = JSON.parse(text) as { from?: unknown; event?: { kind?: unknown; projectId?: unknown } };
    if (typeof m.from !== 'string' || !m.event) return null;
    if (m.event.kind === 'settings') return { from: m.from, event: { kind: 'settings' } };
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
  const subscriber = redis.duplicate();
  subscriber.on('error', onError);
  subscriber.on('message', (ch: string, text: string) => {
    if (ch !== channel) return;
    const m = parse(text);
    if (m && m.from !== self) handlers.apply(m.event);
  });
  let subscribedOnce = false;
  // ioredis resubscribes by itself after a reconnect; whatever was published meanwhile is lost.
  subscriber.on('ready', () => {
    if (subscribedOnce) handlers.resync();
  });
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  // Redis unreachable at start: the first subscribe is tried again until it succeeds (ioredis
  // only renews subscriptions that once succeeded); what was cached meanwhile may be stale.
  const ready = new Promise<void>((resolve) => {
    const attempt = (waitMs: number, failedBefore: boolean) => {
      subscriber.subscribe(channel).then(
        () => {
          subscribedOnce = true;
          if (failedBefore) handlers.resync();
          resolve();
        },
        (err: unknown) => {
          onError(err);
          if (closed) return;
          retry = setTimeout(() => attempt(Math.min(waitMs * 2, 5_000), true), waitMs);
          retry.unref();
        },
      );
    };
    attempt(250, false);
  });

  return {
    publish(event) {
      redis.publish(channel, JSON.stringify({ from: self, event })).catch(onError);
    },
    ready,
    async close() {
      closed = true;
      clearTimeout(retry);
      subscriber.disconnect();
    },
  };
}
