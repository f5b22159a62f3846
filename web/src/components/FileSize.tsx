import { formatBytes } from '@sitehall/contracts';

const exact = new Intl.NumberFormat('zh-CN');

/** A size in B, KB, MB or GB (base 1024), with the exact byte count on hover. */
export function FileSize({ bytes }: { bytes: number }) {
  return <span title={`${exact.format(bytes)} 字节`}>{formatBytes(bytes)}</span>;
}
