import { FILE_TYPE_GROUPS, type FileTypeGroup, fileTypesWhere } from '@sitehall/contracts';

/** The allowed-types checkboxes, grouped the way people think of a site's files (contracts' FILE_TYPES). */
const GROUPS: Array<{ label: string; extensions: readonly string[] }> = (
  Object.keys(FILE_TYPE_GROUPS) as FileTypeGroup[]
).map((group) => ({
  label: FILE_TYPE_GROUPS[group],
  extensions: fileTypesWhere((type) => type.group === group),
}));

/** The known extensions in their groups; any the groups do not name go under 其他. */
export function extensionGroups(known: readonly string[]): Array<{ label: string; extensions: string[] }> {
  const listed = new Set(GROUPS.flatMap((g) => g.extensions));
  const groups = GROUPS.map((g) => ({
    label: g.label,
    extensions: g.extensions.filter((e) => known.includes(e)),
  }));
  const others = known.filter((e) => !listed.has(e));
  if (others.length > 0) groups.push({ label: '其他', extensions: others });
  return groups.filter((g) => g.extensions.length > 0);
}
