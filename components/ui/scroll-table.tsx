import type { ReactNode } from "react";

/**
 * A horizontal scroll container for a table (or anything wider than a phone): the page keeps its
 * width and the table scrolls inside it. It is a named region (a <section> with a label) that takes keyboard focus, so a
 * keyboard user can scroll it with the arrow keys (axe: scrollable-region-focusable).
 *
 * It is `relative`, so an absolutely placed descendant (an `sr-only` label) scrolls with the table
 * instead of widening the page.
 *
 *   <ScrollTable label="Runs"><table className="w-full …">…</table></ScrollTable>
 */
export function ScrollTable({
  label,
  children,
  testId,
  className = "",
}: {
  /** what the table holds, read out when the region takes focus */
  label: string;
  children: ReactNode;
  testId?: string;
  className?: string;
}) {
  return (
    <section
      aria-label={label}
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
      tabIndex={0}
      data-testid={testId}
      data-scroll-table=""
      className={`relative max-w-full overflow-x-auto overscroll-x-contain focus-visible:outline-2 focus-visible:outline-indigo-500 ${className}`}
    >
      {children}
    </section>
  );
}
