import { ReloadOutlined, StarOutlined } from '@ant-design/icons';
import { messages, SHOWCASE_SORTS, type ShowcaseSort } from '@sitehall/contracts';
import { Alert, Button, Checkbox, Col, Empty, Input, Row, Segmented, Skeleton } from 'antd';
import { type ReactNode, useEffect, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { errorMessage } from '../../api/client';
import { showcaseFiltersOf, useShowcase } from '../../api/showcase';
import { PageHeader } from '../../components/PageHeader';
import { ShowcaseCard } from './ShowcaseCard';
import './showcase.css';

const m = messages.project;

const SORT_LABELS: Record<ShowcaseSort, string> = { latest: '最新', popular: '最热门', name: '名称' };

/** Search, sort and the 精选 filter live in the address: a reload or a shared link shows the same list. */
function useShowcaseParams() {
  const [params, setParams] = useSearchParams();
  const { search, sort, featured } = showcaseFiltersOf(params);

  const update = (next: { search?: string; sort?: ShowcaseSort; featured?: boolean }) => {
    const merged = { search, sort, featured, ...next };
    const out = new URLSearchParams();
    if (merged.search) out.set('search', merged.search);
    if (merged.sort !== 'latest') out.set('sort', merged.sort);
    if (merged.featured) out.set('featured', 'true');
    setParams(out, { replace: true });
  };

  return { search, sort, featured, update };
}

const skeletonCards = Array.from({ length: 6 }, (_, i) => `skeleton-${i}`);

export function ShowcasePage() {
  const filters = useShowcaseParams();
  const showcase = useShowcase(filters);
  const [searchText, setSearchText] = useState(filters.search);
  // Back/forward or the clear button change the address; the box follows it.
  useEffect(() => setSearchText(filters.search), [filters.search]);

  const pages = showcase.data?.pages ?? [];
  const projects = pages.flatMap((page) => page.projects);
  const total = pages[0]?.pagination.total_count;
  // A long search term found in very many projects is counted up to a cap: "500+".
  const totalText = pages[0]?.pagination.total_capped ? `${total}+` : `${total}`;
  const filtered = Boolean(filters.search) || filters.featured;
  const clear = () => filters.update({ search: '', featured: false });

  let body: ReactNode;
  if (showcase.isError && !showcase.data) {
    body = (
      <div className="showcase-empty sh-panel">
        <Empty
          image={Empty.PRESENTED_IMAGE_SIMPLE}
          description={
            <>
              <div className="showcase-failed__title">{m.showcaseLoadFailed}</div>
              <div className="showcase-failed__text">{errorMessage(showcase.error)}</div>
            </>
          }
        >
          <Button type="primary" icon={<ReloadOutlined aria-hidden />} onClick={() => showcase.refetch()}>
            重新加载
          </Button>
        </Empty>
      </div>
    );
  } else if (showcase.isPending) {
    body = (
      <Row gutter={[20, 20]}>
        {skeletonCards.map((key) => (
          <Col key={key} xs={24} sm={12} lg={8}>
            <div className="showcase-card showcase-card--loading sh-panel">
              <Skeleton active paragraph={{ rows: 4 }} />
            </div>
          </Col>
        ))}
      </Row>
    );
  } else if (projects.length === 0) {
    body = (
      <div className="showcase-empty sh-panel">
        {filtered ? (
          <Empty description={m.showcaseNoMatch}>
            <Button type="primary" onClick={clear}>
              清除搜索
            </Button>
          </Empty>
        ) : (
          <Empty description={m.showcaseEmpty} />
        )}
      </div>
    );
  } else {
    body = (
      <>
        <Row gutter={[20, 20]} className="showcase-grid" role="list" aria-label="项目列表">
          {projects.map((project) => (
            <Col key={project.id} xs={24} sm={12} lg={8} role="listitem">
              <ShowcaseCard project={project} />
            </Col>
          ))}
        </Row>
        <div className="showcase-more">
          {showcase.isFetchNextPageError && (
            <Alert
              type="error"
              showIcon
              title={m.showcaseLoadFailed}
              className="showcase-more__alert"
              action={
                <Button size="small" onClick={() => showcase.fetchNextPage()}>
                  重试
                </Button>
              }
            />
          )}
          {showcase.hasNextPage ? (
            <Button
              size="large"
              onClick={() => showcase.fetchNextPage()}
              loading={showcase.isFetchingNextPage}
            >
              加载更多
            </Button>
          ) : (
            <span className="showcase-more__end">{m.showcaseEnd}</span>
          )}
        </div>
      </>
    );
  }

  return (
    <div className="public-page showcase-page">
      <PageHeader
        title="项目展厅"
        description="浏览经过审核、公开展示的静态网站，点击“访问”在新标签页中打开。"
      />
      <section className="showcase-toolbar sh-panel" aria-label="搜索与筛选">
        <div className="showcase-toolbar__row">
          <Input.Search
            className="showcase-toolbar__search"
            placeholder="搜索项目名称、描述或作者"
            aria-label="搜索项目"
            allowClear
            size="large"
            value={searchText}
            maxLength={100}
            onChange={(event) => setSearchText(event.target.value)}
            onSearch={(value) => filters.update({ search: value.trim() })}
            enterButton="搜索"
          />
          <div className="showcase-toolbar__controls">
            <span className="showcase-toolbar__label" id="showcase-sort-label">
              排序
            </span>
            <Segmented<ShowcaseSort>
              aria-labelledby="showcase-sort-label"
              value={filters.sort}
              onChange={(sort) => filters.update({ sort })}
              options={SHOWCASE_SORTS.map((sort) => ({ value: sort, label: SORT_LABELS[sort] }))}
            />
            <Checkbox
              checked={filters.featured}
              onChange={(event) => filters.update({ featured: event.target.checked })}
            >
              <StarOutlined aria-hidden /> 只看精选
            </Checkbox>
          </div>
        </div>
        <div className="showcase-toolbar__count" aria-live="polite">
          {total !== undefined && (
            <span className="showcase-toolbar__total">
              {`共 ${totalText} 个项目${filters.search ? `，匹配“${filters.search}”` : ''}${filters.featured ? '（仅精选）' : ''}`}
            </span>
          )}
          {showcase.isFetching && !showcase.isPending && !showcase.isFetchingNextPage && (
            <span className="showcase-toolbar__total">正在更新...</span>
          )}
        </div>
      </section>
      {body}
    </div>
  );
}
