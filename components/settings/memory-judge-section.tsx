"use client";

import type { Settings } from "@/lib/settings/schema";
import { NumberField, SelectField, TextField, Toggle } from "./fields";
import { ProvenanceNote } from "./provenance-note";

type Props = {
  value: Settings;
  set: (path: string, v: unknown) => void;
  err: (path: string) => string | undefined;
};

const verifications = ["strict", "lenient"] as const;

export function MemoryJudgeSection({ value, set, err }: Props) {
  const m = value.memoryJudge;
  const p = "memoryJudge";
  return (
    <fieldset>
      <legend className="mb-2 text-sm font-semibold">Memory judge (the hook and memory search)</legend>
      <ProvenanceNote value={value} path={p} />
      <div className="mb-3 flex flex-wrap gap-4">
        <Toggle
          id={`${p}.enabled`}
          label="enabled"
          checked={m.enabled}
          onChange={(v) => set(`${p}.enabled`, v)}
        />
        <Toggle
          id={`${p}.dual_verification`}
          label="dual verification (relevance + usefulness)"
          checked={m.dual_verification}
          onChange={(v) => set(`${p}.dual_verification`, v)}
        />
        <Toggle
          id={`${p}.include_conversation_context`}
          label="include conversation context"
          checked={m.include_conversation_context}
          onChange={(v) => set(`${p}.include_conversation_context`, v)}
        />
        <Toggle
          id={`${p}.include_body`}
          label="show the judge memory bodies"
          checked={m.include_body}
          onChange={(v) => set(`${p}.include_body`, v)}
        />
        <Toggle
          id={`${p}.shuffle`}
          label="shuffle the candidates"
          checked={m.shuffle}
          onChange={(v) => set(`${p}.shuffle`, v)}
        />
      </div>
      <div className="grid gap-3 sm:grid-cols-3">
        <TextField
          id={`${p}.collection`}
          label="Collection"
          value={m.collection ?? ""}
          hint="blank: a collection named after the project, else default (--collection and JURY_MEMORY_COLLECTION come first)"
          error={err(`${p}.collection`)}
          onChange={(v) => set(`${p}.collection`, v)}
        />
        <TextField
          id={`${p}.model`}
          label="Judge model"
          value={m.model}
          error={err(`${p}.model`)}
          onChange={(v) => set(`${p}.model`, v)}
        />
        <NumberField
          id={`${p}.timeout_per_call`}
          label="Timeout per call (s)"
          value={m.timeout_per_call}
          step={0.5}
          error={err(`${p}.timeout_per_call`)}
          onChange={(v) => set(`${p}.timeout_per_call`, v)}
        />
        <NumberField
          id={`${p}.fallback_top_k`}
          label="Fallback top-k"
          value={m.fallback_top_k}
          step={1}
          error={err(`${p}.fallback_top_k`)}
          onChange={(v) => set(`${p}.fallback_top_k`, v)}
        />
        <NumberField
          id={`${p}.candidate_pool_size`}
          label="Candidate pool size"
          value={m.candidate_pool_size}
          step={1}
          error={err(`${p}.candidate_pool_size`)}
          onChange={(v) => set(`${p}.candidate_pool_size`, v)}
        />
        <NumberField
          id={`${p}.samples`}
          label="Samples per prompt (majority keeps)"
          value={m.samples}
          step={1}
          min={1}
          max={10}
          error={err(`${p}.samples`)}
          onChange={(v) => set(`${p}.samples`, v)}
        />
        <NumberField
          id={`${p}.context_turns`}
          label="Context turns"
          value={m.context_turns}
          step={1}
          error={err(`${p}.context_turns`)}
          onChange={(v) => set(`${p}.context_turns`, v)}
        />
        {(["auto", "search"] as const).map((mode) => (
          <div
            key={mode}
            className="grid grid-cols-2 gap-2 rounded border border-zinc-200 p-2 sm:col-span-3 sm:grid-cols-4"
          >
            <span className="self-center text-sm font-medium">{mode} mode</span>
            <SelectField
              id={`${p}.modes.${mode}.verification`}
              label="Verification"
              value={m.modes[mode].verification}
              options={verifications}
              onChange={(v) => set(`${p}.modes.${mode}.verification`, v)}
            />
            <NumberField
              id={`${p}.modes.${mode}.max_output`}
              label="Max memories"
              value={m.modes[mode].max_output}
              step={1}
              error={err(`${p}.modes.${mode}.max_output`)}
              onChange={(v) => set(`${p}.modes.${mode}.max_output`, v)}
            />
            <NumberField
              id={`${p}.modes.${mode}.candidate_pool_size`}
              label="Candidate pool"
              value={m.modes[mode].candidate_pool_size ?? Number.NaN}
              step={1}
              hint={`blank: the shared ${m.candidate_pool_size}`}
              error={err(`${p}.modes.${mode}.candidate_pool_size`)}
              onChange={(v) => set(`${p}.modes.${mode}.candidate_pool_size`, Number.isNaN(v) ? undefined : v)}
            />
          </div>
        ))}
      </div>
    </fieldset>
  );
}
