/** The platform's public settings (GET /api/config/public): upload limits, allowed types, preview lifetime. */
import { useQuery } from '@tanstack/react-query';
import { call } from './client';
import { queryKeys } from './query-keys';

export const configApi = {
  public: () => call('publicConfig'),
};

export function usePublicConfig() {
  return useQuery({ queryKey: queryKeys.publicConfig, queryFn: configApi.public, staleTime: 5 * 60_000 });
}
