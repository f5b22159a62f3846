/** The shape of an accepted site: its wrapper folder removed, and its entry page found. */
import { extensionOf, fileTypeOf } from '@sitehall/contracts';

/**
 * Removes the folder every file sits under ('mysite/index.html' → 'index.html'). docs/product.md
 * unwraps "that folder"; we repeat while the root still holds a single folder and no file, because
 * re-zipping an extracted download often nests the folder twice ('site/site/index.html') and a
 * root with nothing but one folder is never what the author meant to publish.
 */
export function unwrapSingleFolder(paths: string[]): string[] {
  let current = paths;
  for (;;) {
    const first = current[0]?.split('/')[0];
    if (first === undefined || !current.every((p) => p.startsWith(`${first}/`))) return current;
    current = current.map((p) => p.slice(first.length + 1));
  }
}

/** index.html at the root, else index.htm, else the only HTML page at the root, else none. */
export function findEntryFile(paths: string[]): string | null {
  const root = paths.filter((p) => !p.includes('/'));
  if (root.includes('index.html')) return 'index.html';
  if (root.includes('index.htm')) return 'index.htm';
  const pages = root.filter((p) => fileTypeOf(extensionOf(p))?.scan === 'page');
  return pages.length === 1 ? pages[0]! : null;
}
