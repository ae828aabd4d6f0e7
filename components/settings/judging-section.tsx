"use client";

import type { Settings } from "@/lib/settings/schema";
import { NumberField, Toggle } from "./fields";

type Props = {
  value: Settings;
  set: (path: string, v: unknown) => void;
  err: (path: string) => string | undefined;
};

export function JudgingSection({ value, set, err }: Props) {
  const j = value.judging;
  return (
    <fieldset>
      <legend className="mb-2 text-sm font-semibold">Sampling and execution</legend>
      <div className="grid gap-3 sm:grid-cols-3">
        <NumberField
          id="judging.samples"
          label="N samples per judge (1–10)"
          value={j.samples}
          step={1}
          error={err("judging.samples")}
          onChange={(v) => set("judging.samples", v)}
        />
        <NumberField
          id="judging.temperature"
          label="Temperature (0–2)"
          value={j.temperature}
          step={0.1}
          error={err("judging.temperature")}
          onChange={(v) => set("judging.temperature", v)}
        />
        <NumberField
          id="judging.concurrency"
          label="Concurrency (all calls)"
          value={j.concurrency}
          step={1}
          error={err("judging.concurrency")}
          onChange={(v) => set("judging.concurrency", v)}
        />
        <NumberField
          id="judging.perProviderConcurrency"
          label="Concurrency per provider"
          value={j.perProviderConcurrency}
          step={1}
          error={err("judging.perProviderConcurrency")}
          onChange={(v) => set("judging.perProviderConcurrency", v)}
        />
        <NumberField
          id="judging.timeoutMs"
          label="Per-call timeout (ms)"
          value={j.timeoutMs}
          step={100}
          error={err("judging.timeoutMs")}
          onChange={(v) => set("judging.timeoutMs", v)}
        />
        <NumberField
          id="judging.maxRetries"
          label="Retries per call"
          value={j.maxRetries}
          step={1}
          error={err("judging.maxRetries")}
          onChange={(v) => set("judging.maxRetries", v)}
        />
        <NumberField
          id="judging.maxOutputTokens"
          label="Max output tokens per answer"
          value={j.maxOutputTokens}
          step={1}
          hint="sent with every call (default 1024); reasoning models get 4096 more for their thinking"
          error={err("judging.maxOutputTokens")}
          onChange={(v) => set("judging.maxOutputTokens", v)}
        />
        <NumberField
          id="judging.consensusThreshold"
          label="Flag above cross-judge std (0–9)"
          value={j.consensusThreshold}
          step={0.1}
          hint="in points of a 1–10 scale (default 1.5); a suite's criterion may set its own"
          error={err("judging.consensusThreshold")}
          onChange={(v) => set("judging.consensusThreshold", v)}
        />
      </div>
      <div className="mt-3 flex flex-wrap gap-x-4 gap-y-1">
        <Toggle
          id="judging.flagLowConsensus"
          label="flag verdicts whose judges disagree"
          checked={j.flagLowConsensus}
          error={err("judging.flagLowConsensus")}
          onChange={(v) => set("judging.flagLowConsensus", v)}
        />
        <Toggle
          id="judging.reportUncertainty"
          label="report the cross-judge std and consensus level"
          checked={j.reportUncertainty}
          error={err("judging.reportUncertainty")}
          onChange={(v) => set("judging.reportUncertainty", v)}
        />
        <Toggle
          id="judging.promptCaching"
          label="ask the providers to cache each judge prompt (cache reads cost a tenth of input)"
          checked={j.promptCaching}
          error={err("judging.promptCaching")}
          onChange={(v) => set("judging.promptCaching", v)}
        />
      </div>
    </fieldset>
  );
}
