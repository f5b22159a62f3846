import { ARCHIVE_EXTENSIONS } from '@sitehall/contracts';

/** The allowed-types checkboxes, grouped the way people think of a site's files. */
const GROUPS: Array<{ label: string; extensions: readonly string[] }> = [
  { label: '压缩包', extensions: ARCHIVE_EXTENSIONS },
  {
    label: '网页与代码',
    extensions: ['html', 'htm', 'css', 'js', 'mjs', 'json', 'map', 'xml', 'webmanifest', 'wasm'],
  },
  { label: '图片', extensions: ['png', 'jpg', 'jpeg', 'gif', 'svg', 'webp', 'avif', 'bmp', 'ico'] },
  { label: '字体', extensions: ['woff', 'woff2', 'ttf', 'otf', 'eot', 'pfb'] },
  { label: '音频与视频', extensions: ['mp3', 'mp4', 'webm', 'ogg', 'wav', 'vtt'] },
  { label: '3D 模型', extensions: ['glb', 'gltf'] },
  { label: '文档与数据', extensions: ['txt', 'md', 'csv', 'pdf', 'bcmap', 'icc', 'jsonld'] },
];

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
