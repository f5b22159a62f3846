/**
 * A project's rendered picture for signed-in views (docs/render.md): the picture of a version not
 * yet public is only given to its owner and admins, so it is fetched with the session like any
 * API call and shown from an object URL. Pictures are immutable: fetched once per session. The
 * cache keeps the bytes; each picture on screen makes its own object URL and releases it when it
 * goes or shows another picture, so a long session does not keep every picture it ever showed.
 */
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
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
      return res.data;
    },
  });
  const src = useObjectUrl(query.data ?? null);
  return { src, failed: query.isError };
}

/** An object URL of the blob while the caller shows it: revoked on unmount and when the blob changes. */
function useObjectUrl(blob: Blob | null): string | null {
  const [src, setSrc] = useState<string | null>(null);
  useEffect(() => {
    if (!blob) {
      setSrc(null);
      return;
    }
    const objectUrl = URL.createObjectURL(blob);
    setSrc(objectUrl);
    return () => URL.revokeObjectURL(objectUrl);
  }, [blob]);
  return src;
}
