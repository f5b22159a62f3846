/** A positive integer id as it appears in a URL or a route parameter, or null. */
export function idParam(value: unknown): number | null {
  const s = String(value ?? '');
  if (!/^[1-9][0-9]{0,9}$/.test(s)) return null;
  const n = Number(s);
  return n <= 2_147_483_647 ? n : null;
}
