/**
 * The order a Chinese reader expects names in: by pinyin, as a dictionary or a phone's contacts
 * list (北京, 上海, 中秋), not by code point (上海, 中秋, 北京). Each name gets a sort key, stored
 * beside it and compared as plain bytes, so SQLite and PostgreSQL list the same order
 * (docs/decisions/serving.md "Serving and showcase").
 */
import { pinyin } from 'pinyin-pro';

/**
 * The sort key of a name: its syllables without tones, lower-case, one space between syllables
 * and runs of other characters ('3D展厅' → '3d zhan ting'). A space sorts before any letter, so
 * names compare syllable by syllable (阿尼 'a ni' before 安静 'an jing'), and Latin names fall
 * among the pinyin ones by their letters. Numbers compare by value (项目2 before 项目10): each run
 * of digits becomes its length in two digits, then the digits without leading zeros ('10' →
 * '0210', '2' → '012'; naturalNumbers). Names with the same key are ordered by the name itself.
 */
export function nameSortKey(name: string): string {
  // NFKC first: full-width letters and digits (ＦＵＬＬ) sort as the ASCII ones they stand for.
  const parts = pinyin(name.normalize('NFKC').trim(), {
    toneType: 'none',
    type: 'array',
    nonZh: 'consecutive',
    v: true,
  });
  return naturalNumbers(
    parts
      .map((part) => part.trim().toLowerCase())
      .filter(Boolean)
      .join(' '),
  );
}

/**
 * Builds pinyin-pro's dictionary of words now. The package builds it the first time a name with
 * Chinese characters is read (in a browser, when the page is idle): ≈20 ms of the server's main
 * thread inside the first upload or rename after a start, every other request waiting behind it
 * (docs/benchmarks.md "A worker's first job"). The server calls this while it starts.
 */
export function prepareNameOrder(): void {
  nameSortKey('站点展厅');
}

/**
 * Each run of ASCII digits as its length (two digits) and its digits without leading zeros, so
 * that keys compared as bytes order numbers by value: a longer number is a larger one, and numbers
 * of one length compare digit by digit. A name holds at most 50 characters, so two digits of
 * length always do (docs/decisions/serving.md "Numbers in names sort by value").
 */
export function naturalNumbers(key: string): string {
  return key.replace(/\d+/g, (digits) => {
    const value = digits.replace(/^0+(?=\d)/, '');
    return `${String(value.length).padStart(2, '0')}${value}`;
  });
}

/**
 * A name in Latin letters, for suggesting a site name (docs/decisions/names.md): the syllables of
 * each run of Chinese characters joined into one word (我的博客 → 'wodeboke'), other text as it is,
 * runs apart ('My 博客3D' → 'My boke 3D'); contracts' siteNameFrom makes it a name.
 */
export function latinOf(name: string): string {
  const parts = pinyin(name.normalize('NFKC').trim(), {
    toneType: 'none',
    type: 'all',
    nonZh: 'consecutive',
    v: true,
  });
  let out = '';
  let inZh = false;
  for (const part of parts) {
    if (part.isZh) {
      out += inZh ? part.pinyin : ` ${part.pinyin}`;
      inZh = true;
    } else {
      out += ` ${part.origin}`;
      inZh = false;
    }
  }
  return out.trim();
}
