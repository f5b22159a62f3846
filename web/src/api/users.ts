/** Account administration (/api/admin/users, admin only). */
import type { EndpointData, UpdateUserBody, UserListQuery } from '@sitehall/contracts';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { call } from './client';
import { queryKeys } from './query-keys';

export type UserPage = EndpointData<'users'>;

export const usersApi = {
  list: (query: UserListQuery) => call('users', { query }),
  update: (id: number, body: UpdateUserBody) => call('updateUser', { params: { id }, body }),
  resetPassword: (id: number) => call('resetPassword', { params: { id } }),
  remove: (id: number) => call('deleteUser', { params: { id } }),
  unlock: (id: number) => call('unlockUser', { params: { id } }),
  tokens: (id: number) => call('userApiTokens', { params: { id } }),
  revokeToken: (id: number, tokenId: number) => call('revokeUserApiToken', { params: { id, tokenId } }),
};

export function useAdminUsers(query: UserListQuery) {
  return useQuery({
    queryKey: queryKeys.adminUsers.list(query),
    queryFn: () => usersApi.list(query),
    placeholderData: keepPreviousData,
  });
}

function useUsersMutation<Vars, Result>(mutationFn: (vars: Vars) => Promise<Result>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn,
    // The user list, and the counts of users, admins and disabled accounts the overview shows.
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.adminUsers.all }),
        queryClient.invalidateQueries({ queryKey: queryKeys.adminStats }),
      ]),
  });
}

export function useUpdateUser() {
  return useUsersMutation(({ id, body }: { id: number; body: UpdateUserBody }) => usersApi.update(id, body));
}

export function useResetUserPassword() {
  return useUsersMutation((id: number) => usersApi.resetPassword(id));
}

export function useUnlockUser() {
  return useUsersMutation((id: number) => usersApi.unlock(id));
}

export function useDeleteUser() {
  return useUsersMutation((id: number) => usersApi.remove(id));
}

/** One account's API tokens (name, prefix, dates; never the secret). */
export function useUserApiTokens(id: number) {
  return useQuery({ queryKey: queryKeys.adminUsers.tokens(id), queryFn: () => usersApi.tokens(id) });
}

export function useRevokeUserApiToken(id: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (tokenId: number) => usersApi.revokeToken(id, tokenId),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.adminUsers.tokens(id) }),
  });
}
