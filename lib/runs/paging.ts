/**
 * The run page's case table in pages: `?page=N` (1-based), a fixed number of cases a page. Under a
 * triage filter the pages run over the filtered, sorted list. A page past the end shows the last.
 */

export const CASES_PER_PAGE = 50;

export type PageOf<T> = {
  rows: T[];
  /** 1-based, clamped to 1…pages */
  page: number;
  pages: number;
  /** 1-based positions of the first and last row shown (0 and 0 when there is none) */
  first: number;
  last: number;
  total: number;
};

/** The page number a URL asks for: a whole number ≥ 1, else 1. */
export function parsePage(v: string | string[] | undefined): number {
  const s = Array.isArray(v) ? v[0] : v;
  if (!s || !/^\d{1,9}$/.test(s)) return 1;
  return Math.max(1, Number(s));
}

/** The rows of page `page` (clamped), with where they sit in the whole list. */
export function pageOf<T>(rows: readonly T[], page: number, size = CASES_PER_PAGE): PageOf<T> {
  const total = rows.length;
  const pages = Math.max(1, Math.ceil(total / size));
  const p = Math.min(Math.max(1, Math.floor(page)), pages);
  const start = (p - 1) * size;
  const slice = rows.slice(start, start + size);
  return {
    rows: slice,
    page: p,
    pages,
    first: slice.length ? start + 1 : 0,
    last: start + slice.length,
    total,
  };
}
