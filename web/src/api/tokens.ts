/** Personal API tokens for the `sitehall` command line (/api/auth/tokens). */
import type { ApiTokenListDto, CreatedApiTokenDto, CreateTokenBody } from '@sitehall/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { http } from './client';

export const tokenKeys = { all: ['auth', 'tokens'] as const };

export const tokensApi = {
  list: () => http.get<ApiTokenListDto>('/auth/tokens'),
  create: (body: CreateTokenBody) => http.post<CreatedApiTokenDto>('/auth/tokens', body),
  revoke: (id: number) => http.delete<null>(`/auth/tokens/${id}`),
};

export function useApiTokens() {
  return useQuery({ queryKey: tokenKeys.all, queryFn: tokensApi.list });
}

/** The answer holds the token itself: shown once by the caller, never kept in the query cache. */
export function useCreateApiToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: tokensApi.create,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: tokenKeys.all }),
  });
}

export function useRevokeApiToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: tokensApi.revoke,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: tokenKeys.all }),
  });
}
