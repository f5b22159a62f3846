/**
 * Where the navigation shows the visitor to be, when a page knows better than its address: an
 * admin on another account's project (/projects/12) is in the admin panel's 项目管理, not in 我的项目
 * (docs/product.md "Project detail"). The side menu and the navigation bar read it; without a
 * page's word, the address decides.
 */
import { createContext, type ReactNode, useContext, useEffect, useMemo, useState } from 'react';
import { useLocation } from 'react-router-dom';

interface NavHere {
  /** The path the navigation treats as current; undefined: the address's. */
  path: string | undefined;
  setPath(path: string | undefined): void;
}

const NavHereContext = createContext<NavHere | null>(null);

export function NavHereProvider({ children }: { children: ReactNode }) {
  const [path, setPath] = useState<string | undefined>(undefined);
  const value = useMemo(() => ({ path, setPath }), [path]);
  return <NavHereContext.Provider value={value}>{children}</NavHereContext.Provider>;
}

/** The page's claim, if it made one (outside a side-menu layout: never). */
export function useNavHerePath(): string | undefined {
  return useContext(NavHereContext)?.path;
}

/** The path the navigation shows as current: the page's claim, else the address. */
export function useNavPath(): string {
  const { pathname } = useLocation();
  return useNavHerePath() ?? pathname;
}

/** A page says where the navigation should show the visitor to be while it is open (undefined: its address). */
export function useNavHere(path: string | undefined): void {
  const setPath = useContext(NavHereContext)?.setPath;
  useEffect(() => {
    if (!setPath || path === undefined) return;
    setPath(path);
    return () => setPath(undefined);
  }, [setPath, path]);
}
