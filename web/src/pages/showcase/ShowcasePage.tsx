import { messages, type ShowcaseSort } from '@sitehall/contracts';
import { type ReactNode, Suspense, useEffect, useState } from 'react';
import { useSearchParams } from 'react-router-dom';
import { lazyInShell } from '../../AppProviders';
import { errorMessage, toApiError } from '../../api/client';
import { showcaseFiltersOf, useShowcase } from '../../api/showcase';
import { PageHeader } from '../../components/PageHeader';
import { importChunk } from '../../lib/connection';
import { ShowcaseCard } from './ShowcaseCard';
import './showcase.css';

// The first view (header, cards, list) is plain markup; the parts drawn with antd load on demand,
// antd with them, once the first page of projects has come (docs/benchmarks.md, web app load).
const loadControls = () => importChunk(() => import('./ShowcaseControls'));
const FilterControls = lazyInShell(async () => (await loadControls()).ShowcaseFilterControls, {
  feedback: false,
});
const LoadFailed = lazyInShell(async () => (await loadControls()).ShowcaseLoadFailed, { feedback: false });
const Nothing = lazyInShell(async () => (await loadControls()).ShowcaseNothing, { feedback: false });
const MoreFailed = lazyInShell(async () => (await loadControls()).ShowcaseMoreFailed, { feedback: false });
const SearchRefused = lazyInShell(async () => (await loadControls()).ShowcaseSearchRefused, {
  feedback: false,
});

const m = messages.project;

/**
 * Search, sort and the 精选 filter live in the address: a reload or a shared link shows the same
 * list, and each change is a history entry, so Back shows the list before it.
 */
function useShowcaseParams() {
  const [params, setParams] = useSearchParams();
  const { search, sort, featured } = showcaseFiltersOf(params);

  const update = (next: { search?: string; sort?: ShowcaseSort; featured?: boolean }) => {
    const merged = { search, sort, featured, ...next };
    const out = new URLSearchParams();
    if (merged.search) out.set('search', merged.search);
    if (merged.sort !== 'latest') out.set('sort', merged.sort);
    if (merged.featured) out.set('featured', 'true');
    setParams(out);
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
  // The controls load once the first answer is in, and then stay (a new search must not unmount them).
  const [controlsWanted, setControlsWanted] = useState(false);
  useEffect(() => {
    if (!showcase.isPending) setControlsWanted(true);
  }, [showcase.isPending]);

  const pages = showcase.data?.pages ?? [];
  const projects = pages.flatMap((page) => page.projects);
  const total = pages[0]?.pagination.total_count;
  // A long search term found in very many projects is counted up to a cap: "500+".
  const totalText = pages[0]?.pagination.total_capped ? `${total}+` : `${total}`;
  const filtered = Boolean(filters.search) || filters.featured;
  const clear = () => filters.update({ search: '', featured: false });

  // The search itself refused (more than 8 words, from the address or the box): not a failed load.
  const searchRefused =
    showcase.isError && !showcase.data ? toApiError(showcase.error).fieldErrors.search : undefined;

  let body: ReactNode;
  if (searchRefused) {
    body = (
      <div className="showcase-empty sh-panel">
        <Suspense fallback={<div className="showcase-empty__pending" />}>
          <SearchRefused reason={searchRefused} onClear={clear} />
        </Suspense>
      </div>
    );
  } else if (showcase.isError && !showcase.data) {
    body = (
      <div className="showcase-empty sh-panel">
        <Suspense fallback={<div className="showcase-empty__pending" />}>
          <LoadFailed reason={errorMessage(showcase.error)} onReload={() => showcase.refetch()} />
        </Suspense>
      </div>
    );
  } else if (showcase.isPending) {
    body = (
      <div className="showcase-grid" aria-busy="true">
        {skeletonCards.map((key) => (
          <div key={key} className="showcase-card showcase-card--loading sh-panel" aria-hidden>
            <div className="showcase-skeleton showcase-skeleton--title" />
            {[1, 2, 3, 4].map((line) => (
              <div key={line} className="showcase-skeleton" />
            ))}
          </div>
        ))}
      </div>
    );
  } else if (projects.length === 0) {
    body = (
      <div className="showcase-empty sh-panel">
        <Suspense fallback={<div className="showcase-empty__pending" />}>
          <Nothing onClear={filtered ? clear : undefined} />
        </Suspense>
      </div>
    );
  } else {
    body = (
      <>
        <ul className="showcase-grid" aria-label="项目列表">
          {projects.map((project) => (
            <li key={project.id}>
              <ShowcaseCard project={project} />
            </li>
          ))}
        </ul>
        <div className="showcase-more">
          {showcase.isFetchNextPageError && (
            <Suspense fallback={null}>
              <MoreFailed onRetry={() => showcase.fetchNextPage()} />
            </Suspense>
          )}
          {showcase.hasNextPage ? (
            <button
              type="button"
              className="sh-btn sh-btn--large showcase-more__button"
              onClick={() => showcase.fetchNextPage()}
              disabled={showcase.isFetchingNextPage}
              aria-busy={showcase.isFetchingNextPage}
            >
              {showcase.isFetchingNextPage && <span className="showcase-more__spinner" aria-hidden />}
              <span>加载更多</span>
            </button>
          ) : (
            <span className="showcase-more__end">{m.showcaseEnd}</span>
          )}
        </div>
      </>
    );
  }

  // Until the controls have loaded, boxes of their size hold their place: the cards don't move.
  const controlsPending = (
    <>
      <div className="showcase-toolbar__search showcase-toolbar__pending" aria-hidden />
      <div className="showcase-toolbar__controls showcase-toolbar__pending--controls" aria-hidden />
    </>
  );

  return (
    <div className="public-page showcase-page">
      <PageHeader
        title="项目展厅"
        description="浏览经过审核、公开展示的静态网站，点击“访问”在新标签页中打开。"
      />
      <section className="showcase-toolbar sh-panel" aria-label="搜索与筛选">
        <div className="showcase-toolbar__row">
          {!controlsWanted ? (
            controlsPending
          ) : (
            <Suspense fallback={controlsPending}>
              <FilterControls
                searchText={searchText}
                onSearchTextChange={setSearchText}
                onSearch={(search) => filters.update({ search })}
                sort={filters.sort}
                onSortChange={(sort) => filters.update({ sort })}
                featured={filters.featured}
                onFeaturedChange={(featured) => filters.update({ featured })}
              />
            </Suspense>
          )}
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
