/** The platform's public settings (GET /api/config/public): upload limits, allowed types, preview lifetime. */
import type { PublicConfigDto } from '@sitehall/contracts';
import { useQuery } from '@tanstack/react-query';
import { http } from './client';
import { queryKeys } from './query-keys';

export const configApi = {
  public: () => http.get<PublicConfigDto>('/config/public'),
};

export function usePublicConfig() {
  return useQuery({ queryKey: queryKeys.publicConfig, queryFn: configApi.public, staleTime: 5 * 60_000 });
}
