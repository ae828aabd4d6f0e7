"use client";

import { useRouter } from "next/navigation";
import { useCallback, useEffect, useState, useTransition } from "react";
import { annotate } from "@/app/actions/memory";

export type PoolItem = {
  memoryId: string;
  category: string;
  title: string;
  tags: string[];
  body: string;
  relevant: boolean | null;
};

/** Pooled candidates of one query. Keyboard: j/k move, y/n mark relevant / not relevant. Clicks work too. */
export function AnnotationList({
  collection,
  queryId,
  items,
  nextHref,
}: {
  collection: string;
  queryId: string;
  items: PoolItem[];
  nextHref?: string;
}) {
  const router = useRouter();
  const [cursor, setCursor] = useState(0);
  const [marks, setMarks] = useState<Record<string, boolean | null>>(() =>
    Object.fromEntries(items.map((i) => [i.memoryId, i.relevant])),
  );
  const [error, setError] = useState<string | null>(null);
  const [, start] = useTransition();

  const mark = useCallback(
    (memoryId: string, relevant: boolean) => {
      setMarks((m) => ({ ...m, [memoryId]: relevant }));
      start(async () => {
        const r = await annotate({ collection, queryId, memoryId, relevant });
        if (!r.ok) setError(r.error);
        router.refresh();
      });
    },
    [collection, queryId, router],
  );

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (
        e.target instanceof HTMLInputElement ||
        e.target instanceof HTMLTextAreaElement ||
        e.metaKey ||
        e.ctrlKey
      )
        return;
      const item = items[cursor];
      if (e.key === "j") setCursor((c) => Math.min(items.length - 1, c + 1));
      else if (e.key === "k") setCursor((c) => Math.max(0, c - 1));
      else if ((e.key === "y" || e.key === "n") && item) {
        mark(item.memoryId, e.key === "y");
        setCursor((c) => Math.min(items.length - 1, c + 1));
      } else if (e.key === "Enter" && nextHref) router.push(nextHref);
      else return;
      e.preventDefault();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [items, cursor, mark, nextHref, router]);

  useEffect(() => {
    document.getElementById(`pool-${cursor}`)?.scrollIntoView({ block: "nearest" });
  }, [cursor]);

  if (items.length === 0)
    return (
      <p className="text-sm text-zinc-500">
        Nothing retrieved for this query yet: run a configuration first.
      </p>
    );
  return (
    <div>
      <p className="mb-2 text-xs text-zinc-500">
        <kbd>j</kbd>/<kbd>k</kbd> move · <kbd>y</kbd> relevant · <kbd>n</kbd> not relevant · <kbd>Enter</kbd>{" "}
        next query
      </p>
      {error && <p className="mb-2 text-sm text-red-700">{error}</p>}
      <ol className="space-y-2" data-testid="pool">
        {items.map((it, i) => {
          const v = marks[it.memoryId];
          return (
            <li
              key={it.memoryId}
              id={`pool-${i}`}
              data-testid="pool-item"
              data-state={v === null || v === undefined ? "unmarked" : v ? "relevant" : "not-relevant"}
              aria-current={i === cursor ? "true" : undefined}
              onClick={() => setCursor(i)}
              onKeyDown={() => {}}
              className={`rounded border p-2 text-sm ${i === cursor ? "border-indigo-500 ring-2 ring-indigo-200" : "border-zinc-200"} ${v === true ? "bg-green-50" : v === false ? "bg-zinc-100" : "bg-white"}`}
            >
              <div className="flex items-start justify-between gap-2">
                <div>
                  <span className="mr-2 rounded bg-zinc-100 px-1 text-xs">{it.category}</span>
                  <span className="font-medium">{it.title}</span>
                  <div className="text-xs text-zinc-500">tags: {it.tags.join(", ") || "—"}</div>
                </div>
                <div className="flex shrink-0 gap-1">
                  <button
                    type="button"
                    onClick={() => mark(it.memoryId, true)}
                    className={`rounded border px-2 py-0.5 text-xs ${v === true ? "border-green-600 bg-green-600 text-white" : "border-zinc-300"}`}
                  >
                    relevant (y)
                  </button>
                  <button
                    type="button"
                    onClick={() => mark(it.memoryId, false)}
                    className={`rounded border px-2 py-0.5 text-xs ${v === false ? "border-zinc-600 bg-zinc-600 text-white" : "border-zinc-300"}`}
                  >
                    not (n)
                  </button>
                </div>
              </div>
              <p className="mt-1 whitespace-pre-wrap text-zinc-700">{it.body}</p>
            </li>
          );
        })}
      </ol>
    </div>
  );
}
