/** Custom domains: a project's (the owner's card) and all of them (the admin's page). */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { call } from './client';

export const domainKeys = {
  all: ['domains'] as const,
  ofProject: (projectId: number) => ['domains', 'project', projectId] as const,
  admin: ['domains', 'admin'] as const,
};

export function useProjectDomains(projectId: number) {
  return useQuery({
    queryKey: domainKeys.ofProject(projectId),
    queryFn: () => call('projectDomains', { params: { id: projectId } }),
  });
}

/** Every change reloads every list of domains (the card and the admin page may both be open). */
function useDomainMutation<T>(fn: (arg: T) => Promise<unknown>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: domainKeys.all }),
  });
}

export function useAddDomain(projectId: number) {
  return useDomainMutation((domain: string) =>
    call('addProjectDomain', { params: { id: projectId }, body: { domain } }),
  );
}

/** The check's message (verified, or awaiting approval) is the caller's to show. */
export function useCheckDomain(projectId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (domainId: number) => call('checkProjectDomain', { params: { id: projectId, domainId } }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: domainKeys.all }),
  });
}

export function useRemoveProjectDomain(projectId: number) {
  return useDomainMutation((domainId: number) =>
    call('removeProjectDomain', { params: { id: projectId, domainId } }),
  );
}

export function useAdminDomains() {
  return useQuery({ queryKey: domainKeys.admin, queryFn: () => call('adminDomains') });
}

export function useApproveDomain() {
  return useDomainMutation((id: number) => call('approveDomain', { params: { id } }));
}

export function useRemoveDomain() {
  return useDomainMutation((id: number) => call('removeDomain', { params: { id } }));
}
