import { describe, expect, it } from 'vitest';
import { nameSortKey, naturalNumbers } from './name-order.js';

describe('nameSortKey', () => {
  it('spells Chinese names in toneless pinyin, syllable by syllable, polyphones by word', () => {
    expect(nameSortKey('北京')).toBe('bei jing');
    expect(nameSortKey('重庆')).toBe('chong qing');
    expect(nameSortKey('长城')).toBe('chang cheng');
    expect(nameSortKey('绿色')).toBe('lv se');
  });

  it('keeps other characters as lower-case runs, full-width ones as ASCII', () => {
    expect(nameSortKey('3D展厅')).toBe('013d zhan ting');
    expect(nameSortKey('Apple')).toBe('apple');
    expect(nameSortKey('ＦＵＬＬ宽')).toBe('full kuan');
    expect(nameSortKey('  个人 博客 ')).toBe('ge ren bo ke');
  });

  it('orders names as a Chinese reader expects when compared as plain strings', () => {
    const names = ['中秋', '上海', '北京', '安静', '阿尼', 'Apple', '长城'];
    const sorted = [...names].sort((a, b) => (nameSortKey(a) < nameSortKey(b) ? -1 : 1));
    expect(sorted).toEqual(['阿尼', '安静', 'Apple', '北京', '长城', '上海', '中秋']);
  });

  it('orders numbers by value: 项目2 before 项目10, leading zeros aside, full-width digits too', () => {
    const names = ['项目10', '项目2', '项目1', '项目002', 'v1.10', 'v1.9', '第１２期', '第3期', '项目'];
    const sorted = [...names].sort((a, b) => {
      const [ka, kb] = [nameSortKey(a), nameSortKey(b)];
      return ka < kb ? -1 : ka > kb ? 1 : a < b ? -1 : 1;
    });
    expect(sorted).toEqual([
      // 第 is 'di', before 'v'.
      '第3期',
      '第１２期',
      'v1.9',
      'v1.10',
      '项目',
      '项目1',
      '项目002',
      '项目2',
      '项目10',
    ]);
    expect(nameSortKey('项目10')).toBe('xiang mu 0210');
    expect(nameSortKey('项目002')).toBe(nameSortKey('项目2'));
    expect(naturalNumbers('0')).toBe('010');
  });
});
