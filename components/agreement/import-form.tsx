"use client";

import { useRouter } from "next/navigation";
import { type FormEvent, useActionState, useEffect, useId, useState } from "react";
import { type ImportState, importAgreement } from "@/app/actions/agreement";
import { uploadLimitMessage } from "@/lib/agreement/upload-limit";
import { AgreementJobProgress } from "./job-progress";

const HINTS = {
  trec: {
    gold: "Gold qrels: one line per pair, qid iter docid label",
    judges: "One qrels file per judge (named after the file, or by Judge names)",
  },
  llmbar: {
    gold: "dataset.json (optional: the result files carry the items)",
    judges: "One evaluator's result.json per judge; give Judge names, since every file is called result.json",
  },
  jsonl: { gold: "", judges: "One .jsonl file: item_id, judge, label or score, gold" },
} as const;

/** Upload published judgments: TREC qrels, LLMBar result files, or Jury's JSONL. */
export function ImportForm({ maxBytes }: { maxBytes: number }) {
  const [state, action, pending] = useActionState<ImportState, FormData>(importAgreement, null);
  const [format, setFormat] = useState<keyof typeof HINTS>("trec");
  const [tooBig, setTooBig] = useState<string | null>(null);
  const id = useId();
  const router = useRouter();
  useEffect(() => {
    if (state?.ok && state.data.jobId === null) router.push(`/agreement/${state.data.setId}`);
  }, [state, router]);
  // over the upload limit: say so here, with the CLI command, instead of sending a request the
  // server refuses before the form could answer
  const checkSize = (e: FormEvent<HTMLFormElement>) => {
    let total = 0;
    for (const input of e.currentTarget.querySelectorAll<HTMLInputElement>('input[type="file"]'))
      for (const f of input.files ?? []) total += f.size;
    const message = total > maxBytes ? uploadLimitMessage(total, maxBytes, format) : null;
    setTooBig(message);
    if (message) e.preventDefault();
  };
  const error = tooBig ?? (state && !state.ok ? state.error : null);
  const fieldError = (f: string) =>
    state && !state.ok && state.fieldErrors[f] ? (
      <p id={`${id}-${f}-error`} className="text-xs text-red-700">
        {state.fieldErrors[f]}
      </p>
    ) : null;
  const input = "rounded border border-zinc-300 px-2 py-1 text-sm";
  return (
    <form
      action={action}
      onSubmit={checkSize}
      className="grid gap-3 text-sm sm:grid-cols-2"
      data-testid="import-form"
    >
      <label className="flex flex-col gap-1">
        Format
        <select
          name="format"
          value={format}
          onChange={(e) => setFormat(e.target.value as keyof typeof HINTS)}
          className={input}
        >
          <option value="trec">TREC qrels</option>
          <option value="llmbar">LLMBar result.json</option>
          <option value="jsonl">Jury JSONL</option>
        </select>
      </label>
      <label className="flex flex-col gap-1">
        Name (optional)
        <input name="name" className={input} maxLength={200} />
      </label>
      {format !== "jsonl" && (
        <label className="flex flex-col gap-1">
          {format === "trec" ? "Gold qrels" : "dataset.json"}
          <input type="file" name="gold" className="text-xs" aria-describedby={`${id}-gold-error`} />
          <span className="text-xs text-zinc-500">{HINTS[format].gold}</span>
          {fieldError("gold")}
        </label>
      )}
      <label className="flex flex-col gap-1">
        {format === "jsonl" ? "JSONL file" : "Judge files"}
        <input
          type="file"
          name="judges"
          multiple={format !== "jsonl"}
          className="text-xs"
          aria-describedby={`${id}-judges-error`}
        />
        <span className="text-xs text-zinc-500">{HINTS[format].judges}</span>
        {fieldError("judges")}
      </label>
      {format !== "jsonl" && (
        <label className="flex flex-col gap-1">
          Judge names (optional, comma-separated, in file order)
          <input name="names" className={input} aria-describedby={`${id}-names-error`} />
          {fieldError("names")}
        </label>
      )}
      {format !== "llmbar" && (
        <>
          <label className="flex flex-col gap-1">
            Scale (low-high{format === "trec" ? ", default 0-3" : ""})
            <input
              name="scale"
              className={input}
              placeholder={format === "trec" ? "0-3" : ""}
              aria-describedby={`${id}-scale-error`}
            />
            {fieldError("scale")}
          </label>
          <label className="flex flex-col gap-1">
            Binary cut: relevant at label ≥ (default {format === "trec" ? "2" : "none"})
            <input name="cut" inputMode="numeric" className={input} aria-describedby={`${id}-cut-error`} />
            {fieldError("cut")}
          </label>
        </>
      )}
      <p className="text-xs text-zinc-500 sm:col-span-2">
        Up to {Number((maxBytes / 1024 / 1024).toFixed(1))} MiB in all from the dashboard
        (JURY_UPLOAD_MAX_BYTES); larger files import from the CLI:{" "}
        <code className="break-all">jury agreement import {format} …</code>. The import runs as a job beside
        the dashboard; nothing is stored unless every line of every file is valid.
      </p>
      <div className="sm:col-span-2">
        <button
          type="submit"
          disabled={pending}
          className="rounded bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-700 disabled:opacity-50"
        >
          {pending ? "Importing…" : "Import"}
        </button>
        {error && (
          <pre
            role="alert"
            className="mt-2 whitespace-pre-wrap break-words rounded bg-red-50 p-2 text-xs text-red-800"
            data-testid="import-error"
          >
            {error}
          </pre>
        )}
        {state?.ok && state.data.jobId && !tooBig && (
          <div className="mt-2">
            <AgreementJobProgress
              key={state.data.jobId}
              jobId={state.data.jobId}
              what="Importing"
              doneHref={`/agreement/${state.data.setId}`}
            />
          </div>
        )}
      </div>
    </form>
  );
}
