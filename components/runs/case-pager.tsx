import Link from "next/link";
import type { PageOf } from "@/lib/runs/paging";

const fmt = (n: number) => n.toLocaleString("en-US");

/** "cases 51–100 of 5,000": which cases of the (filtered) list the page shows. */
export function pageRange(p: Pick<PageOf<unknown>, "first" | "last" | "total">): string {
  return p.total === 0 ? "no cases" : `cases ${fmt(p.first)}–${fmt(p.last)} of ${fmt(p.total)}`;
}

type Props = {
  page: Pick<PageOf<unknown>, "page" | "pages" | "first" | "last" | "total">;
  /** the link to page n (the run page's URL with the filters and the selected cell kept) */
  href: (n: number) => string;
};

/**
 * Previous and next page of the verdict table, as links (reachable by Tab, opened by Enter), with
 * the cases shown. Nothing when every case fits on one page.
 */
export function CasePager({ page, href }: Props) {
  if (page.pages <= 1) return null;
  const link = "rounded border border-zinc-300 px-2 py-1 text-indigo-700 underline hover:bg-zinc-50";
  const off = "rounded border border-zinc-200 px-2 py-1 text-zinc-500";
  return (
    <nav
      aria-label="Case pages"
      className="mt-3 flex flex-wrap items-center gap-3 text-sm"
      data-testid="case-pager"
    >
      {page.page > 1 ? (
        <Link href={href(page.page - 1)} rel="prev" className={link} data-testid="pager-prev">
          ← Previous page
        </Link>
      ) : (
        <span aria-disabled="true" className={off}>
          ← Previous page
        </span>
      )}
      <span className="tabular-nums text-zinc-700" data-testid="pager-range" aria-live="polite">
        {pageRange(page)} · page {page.page} of {page.pages}
      </span>
      {page.page < page.pages ? (
        <Link href={href(page.page + 1)} rel="next" className={link} data-testid="pager-next">
          Next page →
        </Link>
      ) : (
        <span aria-disabled="true" className={off}>
          Next page →
        </span>
      )}
    </nav>
  );
}
