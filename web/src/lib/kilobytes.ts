/** Sizes as the showcase and review screens show them: kilobytes, bytes / 1024 (spec §9). */
const kilobytes = new Intl.NumberFormat('zh-CN', { maximumFractionDigits: 2, minimumFractionDigits: 0 });

export function formatKB(bytes: number): string {
  return `${kilobytes.format(Math.max(0, bytes) / 1024)} KB`;
}
