/** Site addresses the API answered, completed for this visitor (lib/site-address.ts). */
import { useCallback } from 'react';
import { usePublicConfig } from '../api/config';
import { absoluteSiteUrl } from '../lib/site-address';

export function useSiteAddress(): (url: string) => string {
  const config = usePublicConfig();
  const sitesPort = config.data?.sites_port;
  return useCallback((url: string) => absoluteSiteUrl(url, sitesPort), [sitesPort]);
}
