/** Personal API tokens for the `sitehall` command line (/api/auth/tokens). */
import type { CreateTokenBody } from '@sitehall/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { call } from './client';

export const tokenKeys = { all: ['auth', 'tokens'] as const };

export const tokensApi = {
  list: () => call('apiTokens'),
  create: (body: CreateTokenBody) => call('createApiToken', { body }),
  revoke: (id: number) => call('revokeApiToken', { params: { id } }),
};

/**
 * Read again when the window regains focus (unlike the app's other queries): a token is used from a
 * terminal, and coming back to the page should show its 最近使用 without a reload.
 */
export function useApiTokens() {
  return useQuery({ queryKey: tokenKeys.all, queryFn: tokensApi.list, refetchOnWindowFocus: 'always' });
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
