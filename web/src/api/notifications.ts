/**
 * The signed-in account's notices (/api/notifications): the bell's unread count (asked again every
 * minute and when the window regains focus), the list, marking read; and a project's analytics.
 */
import type { EndpointQuery } from '@sitehall/contracts';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { call } from './client';
import { queryKeys } from './query-keys';

export type NotificationsQuery = NonNullable<EndpointQuery<'notifications'>>;

export const notificationKeys = {
  all: ['notifications'] as const,
  unread: ['notifications', 'unread'] as const,
  lists: ['notifications', 'list'] as const,
  list: (query: NotificationsQuery) => ['notifications', 'list', query] as const,
  analytics: (projectId: number) => ['projects', 'analytics', projectId] as const,
};

/** How often the bell asks for the unread count. */
const UNREAD_POLL_MS = 60_000;

/**
 * The bell's count. When it changes the notices list is read again; when it grows, something
 * happened to the account's projects (a review decision, a takedown), so the open pages read them
 * again too: a page must not go on offering what the decision took away.
 */
export function useUnreadNotifications(enabled: boolean) {
  const queryClient = useQueryClient();
  const unread = useQuery({
    queryKey: notificationKeys.unread,
    queryFn: async () => (await call('unreadNotifications')).unread_count,
    enabled,
    refetchInterval: UNREAD_POLL_MS,
    refetchOnWindowFocus: true,
  });
  const seen = useRef<number | undefined>(undefined);
  useEffect(() => {
    const count = unread.data;
    if (count === undefined) return;
    const before = seen.current;
    seen.current = count;
    if (before === undefined || count === before) return;
    void queryClient.invalidateQueries({ queryKey: notificationKeys.lists });
    if (count > before) {
      void queryClient.invalidateQueries({ queryKey: queryKeys.projects.all });
      // An admin's notices are new uploads to review.
      void queryClient.invalidateQueries({ queryKey: queryKeys.adminProjects.all });
      void queryClient.invalidateQueries({ queryKey: queryKeys.adminStats });
    }
  }, [unread.data, queryClient]);
  return unread;
}

export function useNotifications(query: NotificationsQuery) {
  return useQuery({
    queryKey: notificationKeys.list(query),
    queryFn: () => call('notifications', { query }),
    placeholderData: keepPreviousData,
  });
}

export function useMarkNotificationRead() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => call('readNotification', { params: { id } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: notificationKeys.all }),
  });
}

export function useMarkAllNotificationsRead() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => call('readAllNotifications'),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: notificationKeys.all }),
  });
}

export function useProjectAnalytics(projectId: number) {
  return useQuery({
    queryKey: notificationKeys.analytics(projectId),
    queryFn: () => call('projectAnalytics', { params: { id: projectId } }),
    enabled: Number.isInteger(projectId) && projectId > 0,
  });
}
