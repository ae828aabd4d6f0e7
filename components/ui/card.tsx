import type { ReactNode } from "react";

export function Card({
  title,
  children,
  testId,
}: {
  title?: ReactNode;
  children: ReactNode;
  testId?: string;
}) {
  return (
    <section
      data-testid={testId}
      className="min-w-0 rounded-lg border border-zinc-200 bg-white p-4 shadow-sm"
    >
      {title && <h2 className="mb-3 text-sm font-semibold text-zinc-700">{title}</h2>}
      {children}
    </section>
  );
}

export function EmptyState({
  title,
  children,
  testId,
}: {
  title: string;
  children: ReactNode;
  testId?: string;
}) {
  return (
    <div
      data-testid={testId}
      className="rounded-lg border border-dashed border-zinc-300 bg-white p-6 text-sm text-zinc-600"
    >
      <p className="mb-2 font-medium text-zinc-800">{title}</p>
      {children}
    </div>
  );
}

export function PageTitle({ children, actions }: { children: ReactNode; actions?: ReactNode }) {
  return (
    <div className="mb-4 flex flex-wrap items-center justify-between gap-x-4 gap-y-2">
      <h1 className="min-w-0 break-words text-xl font-semibold">{children}</h1>
      {actions}
    </div>
  );
}
