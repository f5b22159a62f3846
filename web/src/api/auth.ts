/** Sign-in, sessions, the own profile and account creation (/api/auth). */
import type { LoginBody, RegisterBody, UpdateProfileBody } from '@sitehall/contracts';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { call } from './client';
import { queryKeys } from './query-keys';

export const authApi = {
  /** A wrong password is a 401 that the login form reports itself. */
  login: (body: LoginBody) => call('login', { body, config: { skipAuthRedirect: true } }),
  /** An already expired session is signed out all the same. */
  logout: () => call('logout', { config: { skipAuthRedirect: true } }),
  refresh: () => call('refresh'),
  /** Checks the stored session at start; the auth provider handles a 401 quietly. */
  profile: () => call('profile', { config: { skipAuthRedirect: true } }),
  updateProfile: (body: UpdateProfileBody) => call('updateProfile', { body }),
  register: (body: RegisterBody) => call('register', { body }),
};

/** The signed-in user as the server knows it now (role or email may have changed since sign-in). */
export function useProfileQuery(enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.profile,
    queryFn: authApi.profile,
    enabled,
    staleTime: 5 * 60_000,
    retry: false,
  });
}

export function useUpdateProfile() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: authApi.updateProfile,
    onSuccess: (data) => queryClient.setQueryData(queryKeys.profile, data),
  });
}

/** Creates an account (admin only); the answer holds the generated password, shown once. */
export function useRegisterUser() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: authApi.register,
    onSuccess: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: queryKeys.adminUsers.all }),
        queryClient.invalidateQueries({ queryKey: queryKeys.adminStats }),
      ]),
  });
}
