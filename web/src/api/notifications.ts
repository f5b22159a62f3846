/**
 * The signed-in account's notices (/api/notifications): the bell's unread count (asked again every
 * minute and when the window regains focus), the list, marking read; and a project's analytics.
 */
import type { EndpointQuery } from '@sitehall/contracts';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { call } from './client';

export type NotificationsQuery = NonNullable<EndpointQuery<'notifications'>>;

export const notificationKeys = {
  all: ['notifications'] as const,
  unread: ['notifications', 'unread'] as const,
  list: (query: NotificationsQuery) => ['notifications', 'list', query] as const,
  analytics: (projectId: number) => ['projects', 'analytics', projectId] as const,
};

/** How often the bell asks for the unread count. */
const UNREAD_POLL_MS = 60_000;

export function useUnreadNotifications(enabled: boolean) {
  return useQuery({
    queryKey: notificationKeys.unread,
    queryFn: async () => (await call('unreadNotifications')).unread_count,
    enabled,
    refetchInterval: UNREAD_POLL_MS,
    refetchOnWindowFocus: true,
  });
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
