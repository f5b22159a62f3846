/**
 * The showcase's sort orders, apart from the zod schemas: the showcase page needs the list, and a
 * constant beside a schema would bring zod into its first load.
 */
export const SHOWCASE_SORTS = ['latest', 'popular', 'name'] as const;
export type ShowcaseSort = (typeof SHOWCASE_SORTS)[number];
