"use client";

import type { Settings } from "@/lib/settings/schema";
import { NumberField } from "./fields";

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
      </div>
    </fieldset>
  );
}
