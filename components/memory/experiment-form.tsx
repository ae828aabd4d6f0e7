"use client";

import { useRouter } from "next/navigation";
import { type FormEvent, startTransition, useActionState, useEffect, useRef, useState } from "react";
import { type StartExperimentState, startExperiment } from "@/app/actions/memory";
import { RETRIEVAL_KIND_LABELS, RETRIEVAL_KINDS } from "@/lib/memory/kinds";

const field = "w-full rounded border border-zinc-300 bg-white px-2 py-1 text-sm";

/**
 * Starts a configuration over every query. A qrels (BEIR) collection defaults to search mode and
 * top 10, as BEIR measures; an annotated study to the hook's auto mode and top 3.
 */
export function ExperimentForm({
  collection,
  defaultModel,
  judges,
  defaultMode = "auto",
  defaultTopK = 3,
  bm25Depth,
}: {
  collection: string;
  defaultModel: string;
  judges: string[];
  defaultMode?: "auto" | "search";
  defaultTopK?: number;
  /** how many ranked candidates a BM25 run keeps */
  bm25Depth: number;
}) {
  const router = useRouter();
  const [state, action, pending] = useActionState<StartExperimentState, FormData>(startExperiment, null);
  const [kind, setKind] = useState("bm25");
  const formRef = useRef<HTMLFormElement>(null);
  const alertRef = useRef<HTMLSpanElement>(null);
  useEffect(() => {
    if (!state) return;
    if (state.ok) {
      router.refresh();
      return;
    }
    // the first field that failed, in the form's order; else the message itself
    const first = formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]');
    if (first) first.focus();
    else alertRef.current?.focus();
  }, [state, router]);
  /**
   * Submitted by hand, not as `<form action>`: React resets a form after its action, putting every
   * field (the shuffle box, the mode, top-k…) back to its default. Here what was typed stays.
   */
  const onSubmit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const data = new FormData(e.currentTarget);
    startTransition(() => action(data));
  };
  const fe = state && !state.ok ? state.fieldErrors : {};
  /** aria attributes and the error line for one field */
  const invalid = (name: string) =>
    fe[name] ? { "aria-invalid": true as const, "aria-describedby": `experiment-error-${name}` } : {};
  const error = (name: string) =>
    fe[name] && (
      <span
        id={`experiment-error-${name}`}
        className="block text-red-700"
        data-testid={`experiment-error-${name}`}
      >
        {fe[name]}
      </span>
    );
  const models = [...new Set([defaultModel, ...judges])];
  return (
    <form
      ref={formRef}
      onSubmit={onSubmit}
      noValidate
      className="grid gap-3 sm:grid-cols-4"
      data-testid="experiment-form"
    >
      <input type="hidden" name="collection" value={collection} />
      <label className="text-xs font-medium text-zinc-700">
        Configuration
        <select
          name="kind"
          className={field}
          value={kind}
          onChange={(e) => setKind(e.currentTarget.value)}
          data-testid="experiment-kind"
          {...invalid("kind")}
        >
          {RETRIEVAL_KINDS.map((k) => (
            <option key={k} value={k}>
              {RETRIEVAL_KIND_LABELS[k].long}
            </option>
          ))}
        </select>
        {error("kind")}
      </label>
      <label className="text-xs font-medium text-zinc-700">
        Mode
        <select name="mode" className={field} defaultValue={defaultMode} {...invalid("mode")}>
          <option value="auto">auto (title + tags)</option>
          <option value="search">search (title + tags + body)</option>
        </select>
        {error("mode")}
      </label>
      <label className="text-xs font-medium text-zinc-700">
        Top-k (max kept)
        <input
          name="topK"
          type="number"
          defaultValue={defaultTopK}
          min={1}
          max={100}
          className={field}
          {...invalid("topK")}
        />
        {error("topK")}
      </label>
      {kind === "bm25" ? (
        <p className="self-end pb-1 text-xs text-zinc-600" data-testid="bm25-depth">
          Depth {bm25Depth}: the run keeps its top {bm25Depth} ranked candidates for nDCG@10 and R@100 (the
          CLI&apos;s <code>--depth</code> goes to 1000).
          <input type="hidden" name="poolSize" value={Math.min(bm25Depth, 100)} />
        </p>
      ) : (
        <label className="text-xs font-medium text-zinc-700">
          Candidate pool (what the judge sees)
          <input
            name="poolSize"
            type="number"
            defaultValue={15}
            min={1}
            max={100}
            className={field}
            {...invalid("poolSize")}
          />
          {error("poolSize")}
        </label>
      )}
      {kind !== "bm25" && (
        <>
          <label className="text-xs font-medium text-zinc-700 sm:col-span-2">
            Judge model
            <input
              name="model"
              list="judge-models"
              defaultValue={defaultModel}
              className={field}
              data-testid="experiment-model"
              {...invalid("model")}
            />
            <datalist id="judge-models">
              {models.map((m) => (
                <option key={m} value={m} />
              ))}
            </datalist>
            {error("model")}
          </label>
          <label className="text-xs font-medium text-zinc-700">
            N (majority of N samples)
            <input
              name="n"
              type="number"
              defaultValue={1}
              min={1}
              max={10}
              className={field}
              {...invalid("n")}
            />
            {error("n")}
          </label>
          <label className="flex items-end gap-2 pb-1 text-sm">
            <input type="checkbox" name="shuffle" defaultChecked /> shuffle candidate order
          </label>
        </>
      )}
      {kind === "bm25" && <input type="hidden" name="n" value="1" />}
      <div className="flex items-center gap-3 sm:col-span-4">
        <button
          type="submit"
          disabled={pending}
          data-testid="run-experiment"
          className="rounded bg-indigo-600 px-4 py-1.5 text-sm font-medium text-white hover:bg-indigo-700 disabled:opacity-50"
        >
          {pending ? "Starting…" : "Run over every query"}
        </button>
        {state && !state.ok && (
          <span
            ref={alertRef}
            tabIndex={-1}
            role="alert"
            className="text-sm text-red-700 focus:outline-none"
            data-testid="experiment-error"
          >
            {state.error}
          </span>
        )}
      </div>
    </form>
  );
}
