/**
 * The showcase's antd parts, loaded after the first cards have shown (ShowcasePage): the search,
 * sort and 精选 controls, and the empty, failed and next-page-failed states. The cards and the list
 * are plain markup, so the first view waits for none of antd (docs/benchmarks.md, web app load).
 */
import { ReloadOutlined, StarOutlined } from '@ant-design/icons';
import { messages, SHOWCASE_SORTS, type ShowcaseSort } from '@sitehall/contracts';
import { Alert, Button, Checkbox, Empty, Input, Segmented } from 'antd';

const m = messages.project;

const SORT_LABELS: Record<ShowcaseSort, string> = { latest: '最新', popular: '最热门', name: '名称' };

export interface ShowcaseFilterControlsProps {
  searchText: string;
  onSearchTextChange: (text: string) => void;
  onSearch: (search: string) => void;
  sort: ShowcaseSort;
  onSortChange: (sort: ShowcaseSort) => void;
  featured: boolean;
  onFeaturedChange: (featured: boolean) => void;
}

/** Search box, sort and the 精选 filter: the toolbar's row. */
export function ShowcaseFilterControls(props: ShowcaseFilterControlsProps) {
  return (
    <>
      <Input.Search
        className="showcase-toolbar__search"
        placeholder="搜索项目名称、描述或作者"
        aria-label="搜索项目"
        allowClear
        size="large"
        value={props.searchText}
        maxLength={100}
        onChange={(event) => props.onSearchTextChange(event.target.value)}
        onSearch={(value) => props.onSearch(value.trim())}
        enterButton="搜索"
      />
      <div className="showcase-toolbar__controls">
        <span className="showcase-toolbar__label" id="showcase-sort-label">
          排序
        </span>
        <Segmented<ShowcaseSort>
          aria-labelledby="showcase-sort-label"
          value={props.sort}
          onChange={props.onSortChange}
          options={SHOWCASE_SORTS.map((sort) => ({ value: sort, label: SORT_LABELS[sort] }))}
        />
        <Checkbox checked={props.featured} onChange={(event) => props.onFeaturedChange(event.target.checked)}>
          <StarOutlined aria-hidden /> 只看精选
        </Checkbox>
      </div>
    </>
  );
}

/** The first page could not be loaded: why, and a button to ask again. */
export function ShowcaseLoadFailed({ reason, onReload }: { reason: string; onReload: () => void }) {
  return (
    <Empty
      image={Empty.PRESENTED_IMAGE_SIMPLE}
      description={
        <>
          <div className="showcase-failed__title">{m.showcaseLoadFailed}</div>
          <div className="showcase-failed__text">{reason}</div>
        </>
      }
    >
      <Button type="primary" icon={<ReloadOutlined aria-hidden />} onClick={onReload}>
        重新加载
      </Button>
    </Empty>
  );
}

/** What a showcase search may be (docs/product.md "Showcase"): the box's maxLength and the server's word limit. */
export const SEARCH_LIMITS_NOTE = '搜索最多 100 个字符、8 个词，请减少或缩短关键词后再搜索。';

/**
 * The server refused the search itself (400 on search: more than 8 words): asking again gets the
 * same answer, so the way on is another search or none, not 重新加载.
 */
export function ShowcaseSearchRefused({ reason, onClear }: { reason: string; onClear: () => void }) {
  return (
    <Empty
      image={Empty.PRESENTED_IMAGE_SIMPLE}
      description={
        <>
          <div className="showcase-failed__title">{reason}</div>
          <div className="showcase-failed__text">{SEARCH_LIMITS_NOTE}</div>
        </>
      }
    >
      <Button type="primary" onClick={onClear}>
        清除搜索
      </Button>
    </Empty>
  );
}

/** No project to show: none published yet, or none matching the search (with a way back). */
export function ShowcaseNothing({ onClear }: { onClear?: () => void }) {
  return onClear ? (
    <Empty description={m.showcaseNoMatch}>
      <Button type="primary" onClick={onClear}>
        清除搜索
      </Button>
    </Empty>
  ) : (
    <Empty description={m.showcaseEmpty} />
  );
}

/** The next page could not be loaded: the cards already shown stay, with a retry. */
export function ShowcaseMoreFailed({ onRetry }: { onRetry: () => void }) {
  return (
    <Alert
      type="error"
      showIcon
      title={m.showcaseLoadFailed}
      className="showcase-more__alert"
      action={
        <Button size="small" onClick={onRetry}>
          重试
        </Button>
      }
    />
  );
}
