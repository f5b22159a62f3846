/**
 * Files for tests that serve a site: a page and a stylesheet large enough to be compressed (over
 * the compression floor) and small enough to be kept in memory.
 */
export const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>首页</title></head><body>${'<p>站点展厅。</p>'.repeat(200)}</body></html>`;
export const CSS = `.card { margin: 0 auto; padding: 1em; }\n`.repeat(100);
