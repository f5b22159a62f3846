import type { ApiTokenDto } from '@sitehall/contracts';
import type { ApiTokenRow } from '../db/types.js';

/** Never the hash: a listed token can only be named and revoked. */
export function presentApiToken(t: ApiTokenRow): ApiTokenDto {
  return {
    id: t.id,
    name: t.name,
    prefix: t.prefix,
    created_at: t.created_at,
    last_used_at: t.last_used_at,
  };
}
