/**
 * A project's rendered picture for signed-in views (docs/render.md): the picture of a version not
 * yet public is only given to its owner and admins, so it is fetched with the session like any
 * API call and shown from an object URL. Pictures are immutable: fetched once per session.
 */
import { useQuery } from '@tanstack/react-query';
import { apiClient } from './client';

export function useThumbnail(url: string | null) {
  const query = useQuery({
    queryKey: ['thumbnail', url],
    enabled: url !== null,
    staleTime: Number.POSITIVE_INFINITY,
    gcTime: 10 * 60_000,
    retry: false,
    queryFn: async () => {
      // The API client's base is /api; the picture's address already includes it.
      const res = await apiClient.get<Blob>(url!.replace(/^\/api/, ''), { responseType: 'blob' });
      return URL.createObjectURL(res.data);
    },
  });
  return { src: query.data ?? null, failed: query.isError };
}
