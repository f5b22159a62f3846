/** Dates and waits as the Chinese interface shows them. */
import { format, messages } from '@sitehall/contracts';

const dateTime = new Intl.DateTimeFormat('zh-CN', {
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  hour12: false,
});

const dateOnly = new Intl.DateTimeFormat('zh-CN', { year: 'numeric', month: '2-digit', day: '2-digit' });

function parse(value: string | null | undefined): Date | null {
  if (!value) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

/** 2024/05/01 14:30, or the fallback when there is no date. */
export function formatDateTime(value: string | null | undefined, fallback = '—'): string {
  const date = parse(value);
  return date ? dateTime.format(date) : fallback;
}

export function formatDate(value: string | null | undefined, fallback = '—'): string {
  const date = parse(value);
  return date ? dateOnly.format(date) : fallback;
}

/**
 * How long to wait, from a Retry-After in seconds: 请在 N 分钟后重试 (whole minutes, rounded up),
 * or 请在 N 秒后重试 under a minute, where "1 分钟" would be up to twice too long.
 */
export function formatRetryWait(seconds: number): string {
  const s = Math.max(1, Math.ceil(seconds));
  return s < 60
    ? format(messages.auth.retryInSeconds, { n: s })
    : format(messages.auth.retryInMinutes, { n: Math.ceil(s / 60) });
}
