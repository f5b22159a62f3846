/** A positive integer id as it appears in a URL or a route parameter, or null. */
export function idParam(value: unknown): number | null {
  const s = String(value ?? '');
  if (!/^[1-9][0-9]{0,9}$/.test(s)) return null;
  const n = Number(s);
  return n <= 2_147_483_647 ? n : null;
}

/** A deploy's id: 18 random bytes in base64url (services/deploys.ts), exactly 24 characters. */
const DEPLOY_ID = /^[A-Za-z0-9_-]{24}$/;

/**
 * A deploy id as a route parameter, or null for anything that can't be one (a NUL byte reached
 * PostgreSQL and failed as invalid UTF-8 there: a 500 before).
 */
export function deployIdParam(value: unknown): string | null {
  const s = String(value ?? '');
  return DEPLOY_ID.test(s) ? s : null;
}
