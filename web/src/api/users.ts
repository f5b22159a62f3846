/** Account administration (/api/admin/users, admin only). */
import type {
  AdminUserDto,
  Pagination,
  PasswordResetData,
  UpdateUserBody,
  UserDto,
  UserListQuery,
} from '@sitehall/contracts';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { http } from './client';
import { queryKeys } from './query-keys';

export interface UserPage {
  users: AdminUserDto[];
  pagination: Pagination;
}

export const usersApi = {
  list: (query: UserListQuery) => http.get<UserPage>('/admin/users', { params: query }),
  update: (id: number, body: UpdateUserBody) => http.patch<{ user: UserDto }>(`/admin/users/${id}`, body),
  resetPassword: (id: number) => http.post<PasswordResetData>(`/admin/users/${id}/reset-password`),
  remove: (id: number) => http.delete<null>(`/admin/users/${id}`),
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

export function useDeleteUser() {
  return useUsersMutation((id: number) => usersApi.remove(id));
}
