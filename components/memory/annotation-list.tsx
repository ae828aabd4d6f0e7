"use client";

import { useRouter } from "next/navigation";
import { useCallback, useEffect, useState, useTransition } from "react";
import { annotate, undoAnnotation } from "@/app/actions/memory";

type LabelSource = "qrels" | "human" | "example";

export type PoolItem = {
  memoryId: string;
  category: string;
  title: string;
  tags: string[];
  body: string;
  relevant: boolean | null;
  /** where the current label came from, and when */
  labelSource: LabelSource | null;
  labelledAt: string | null;
};

export type HistoryItem = {
  id: number;
  /** null: a change to the whole query (a fresh annotation's start, or its undo) */
  memoryId: string | null;
  title: string;
  relevance: number | null;
  previous: number | null;
  source: LabelSource | "undo" | "fresh";
  /** a change to the whole query: how many labels it cleared or brought back, and how many relevant */
  cleared: { labels: number; relevant: number } | null;
  /** who made the change; null: an import, an example, or before authors were kept */
  author: string | null;
  at: string;
};

/** The change an undo would revert: one memory's label, or a fresh start (`restores` labels). */
export type Undoable = {
  memoryId: string | null;
  title: string;
  previous: number | null;
  restores: number | null;
};

const SOURCE_TEXT: Record<LabelSource | "undo" | "fresh", string> = {
  human: "a person",
  example: "example label",
  qrels: "imported",
  undo: "undo",
  fresh: "a person",
};
const labelText = (r: number | null) => (r === null ? "no label" : r > 0 ? "relevant" : "not relevant");
const when = (iso: string) => new Date(iso).toLocaleString();
const fromItems = (items: PoolItem[]) => Object.fromEntries(items.map((i) => [i.memoryId, i.relevant]));

/** A query's label changes, newest first, with the undo of the newest one not yet undone. */
function History({
  history,
  total,
  undoable,
  onUndo,
  pending,
}: {
  history: HistoryItem[];
  total: number;
  undoable: Undoable | null;
  onUndo: () => void;
  pending: boolean;
}) {
  return (
    <section className="rounded border border-zinc-200 bg-white p-2 text-xs" data-testid="annotation-history">
      <div className="mb-1 flex items-center justify-between gap-2">
        <h2 className="font-semibold text-zinc-700">
          Label history of this query{" "}
          <span className="font-normal text-zinc-600" data-testid="history-count">
            {total} change{total === 1 ? "" : "s"}
            {total > history.length ? `, newest ${history.length} shown` : ""}
          </span>
        </h2>
        <button
          type="button"
          data-testid="undo-annotation"
          disabled={!undoable || pending}
          onClick={onUndo}
          title={
            !undoable
              ? "nothing to undo"
              : undoable.memoryId === null
                ? `bring back the ${undoable.restores ?? 0} labels the fresh annotation cleared`
                : `set "${undoable.title || undoable.memoryId}" back to ${labelText(undoable.previous)}`
          }
          className="rounded border border-zinc-300 px-2 py-0.5 hover:bg-zinc-50 disabled:opacity-40"
        >
          Undo last change
        </button>
      </div>
      {history.length === 0 ? (
        <p className="text-zinc-600">No label has been set for this query.</p>
      ) : (
        <ol
          className="max-h-48 space-y-0.5 overflow-y-auto"
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable list must be reachable by keyboard
          tabIndex={0}
          aria-label="Label history"
        >
          {history.map((h) => (
            <li
              key={h.id}
              data-testid="history-entry"
              data-source={h.source}
              data-memory={h.memoryId ?? undefined}
            >
              <span className="text-zinc-600">{when(h.at)}</span> · <HistoryChange h={h} /> ·{" "}
              <HistoryWho h={h} />
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/** Who made a change: the person's name where it was kept, else where the label came from. */
function HistoryWho({ h }: { h: HistoryItem }) {
  if (h.author === null) return <>{SOURCE_TEXT[h.source]}</>;
  return (
    <>
      {h.source === "undo" ? "undo by " : "by "}
      <span className="font-medium" data-testid="history-author">
        {h.author}
      </span>
    </>
  );
}

/** One history entry's change: a memory's label before → after, or a whole query's fresh start and its undo. */
function HistoryChange({ h }: { h: HistoryItem }) {
  if (h.memoryId === null) {
    const n = h.cleared?.labels ?? 0;
    const detail = n ? ` (${h.cleared?.relevant ?? 0} relevant, ${n - (h.cleared?.relevant ?? 0)} not)` : "";
    return h.source === "undo" ? (
      <strong>
        fresh annotation undone: {n} label{n === 1 ? "" : "s"} back{detail}
      </strong>
    ) : (
      <strong>
        fresh annotation started: {n} label{n === 1 ? "" : "s"} cleared{detail}
      </strong>
    );
  }
  // the same grade from a second person: their own judgement, kept for agreement between people
  if (h.source === "human" && h.previous === h.relevance)
    return (
      <>
        <span title={h.memoryId}>{h.title || h.memoryId}</span>: <strong>{labelText(h.relevance)}</strong>{" "}
        (the same label, from another person)
      </>
    );
  return (
    <>
      <span title={h.memoryId}>{h.title || h.memoryId}</span>: {labelText(h.previous)} →{" "}
      <strong>{labelText(h.relevance)}</strong>
    </>
  );
}

/**
 * Pooled candidates of one query, each with where its label came from. Keyboard: y/n mark the
 * highlighted memory relevant / not relevant and move the highlight to the next one (one key per
 * memory; the hint and a status line say so, so a j after a y is expected to move on again), j/k
 * move, u undoes the last change, Enter opens the next query. Clicks work too.
 */
export function AnnotationList({
  collection,
  queryId,
  items,
  nextHref,
  history,
  historyTotal,
  undoable,
}: {
  collection: string;
  queryId: string;
  items: PoolItem[];
  nextHref?: string;
  history: HistoryItem[];
  historyTotal: number;
  undoable: Undoable | null;
}) {
  const router = useRouter();
  const [cursor, setCursor] = useState(0);
  const [marks, setMarks] = useState<Record<string, boolean | null>>(() => fromItems(items));
  // the server's labels win when they change (after a save, an undo, a fresh start)
  const [seen, setSeen] = useState(items);
  if (seen !== items) {
    setSeen(items);
    setMarks(fromItems(items));
  }
  const [error, setError] = useState<string | null>(null);
  /** what the last key did, read out: a y or n moves the highlight on */
  const [status, setStatus] = useState("");
  const [pending, start] = useTransition();

  const undo = useCallback(() => {
    start(async () => {
      const r = await undoAnnotation({ collection, queryId });
      if (!r.ok) setError(r.error);
      router.refresh();
    });
  }, [collection, queryId, router]);

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
        const next = Math.min(items.length - 1, cursor + 1);
        setCursor(next);
        setStatus(
          `Marked "${item.title || item.memoryId}" ${e.key === "y" ? "relevant" : "not relevant"}; ${
            next === cursor
              ? `that was the last memory of this query${nextHref ? ": Enter opens the next query" : ""}.`
              : `now on memory ${next + 1} of ${items.length}.`
          }`,
        );
      } else if (e.key === "u" && undoable) undo();
      else if (e.key === "Enter" && nextHref) router.push(nextHref);
      else return;
      e.preventDefault();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [items, cursor, mark, nextHref, router, undo, undoable]);

  useEffect(() => {
    document.getElementById(`pool-${cursor}`)?.scrollIntoView({ block: "nearest" });
  }, [cursor]);

  const historyBox = (
    <History history={history} total={historyTotal} undoable={undoable} onUndo={undo} pending={pending} />
  );
  if (items.length === 0)
    return (
      <div className="space-y-3">
        <p className="text-sm text-zinc-600">
          Nothing retrieved for this query yet: run a configuration first.
        </p>
        {historyBox}
      </div>
    );
  return (
    <div className="space-y-3">
      <p className="text-xs text-zinc-600" data-testid="annotation-hint">
        <kbd>y</kbd> relevant, <kbd>n</kbd> not relevant: each marks the highlighted memory{" "}
        <strong>and moves to the next</strong> · <kbd>j</kbd>/<kbd>k</kbd> move without marking · <kbd>u</kbd>{" "}
        undo · <kbd>Enter</kbd> next query
      </p>
      <p className="min-h-4 text-xs text-zinc-700" role="status" data-testid="annotation-status">
        {status}
      </p>
      {error && <p className="text-sm text-red-700">{error}</p>}
      {historyBox}
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
                  <span className="font-medium">
                    {it.title || <span className="text-zinc-600">(no title)</span>}
                  </span>
                  <div className="text-xs text-zinc-600">tags: {it.tags.join(", ") || "—"}</div>
                  <div className="text-xs text-zinc-600" data-testid="label-source">
                    {v === null || v === undefined
                      ? "no label yet: needs annotation"
                      : it.labelSource && it.relevant === v
                        ? `${labelText(v ? 1 : 0)} · ${SOURCE_TEXT[it.labelSource]}${it.labelledAt ? `, ${when(it.labelledAt)}` : ""}`
                        : `${labelText(v ? 1 : 0)} · saving…`}
                  </div>
                </div>
                <div className="flex shrink-0 gap-1">
                  <button
                    type="button"
                    onClick={() => mark(it.memoryId, true)}
                    className={`rounded border px-2 py-0.5 text-xs ${v === true ? "border-green-700 bg-green-700 text-white" : "border-zinc-300"}`}
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
