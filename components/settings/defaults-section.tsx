"use client";

import type { Settings } from "@/lib/settings/schema";
import { FieldError, ModelList } from "./fields";
import { ProvenanceNote } from "./provenance-note";

type Props = {
  value: Settings;
  set: (path: string, v: unknown) => void;
  err: (path: string) => string | undefined;
};

/**
 * The judges promoted from the agreement view: each criterion's default panel (`jury eval` without
 * --judges, the run form's preselection) and the review judges (`jury review` without --judges or
 * JUDGE_MODEL), each with where it came from. Editable by hand; a new criterion's panel is added
 * from the agreement view or with `jury settings set criteriaPanels.<criterion> '[…]'`.
 */
export function DefaultsSection({ value, set, err }: Props) {
  const panels = Object.entries(value.criteriaPanels);
  return (
    <fieldset data-testid="defaults-section">
      <legend className="mb-2 text-sm font-semibold">
        Default judges (promoted from the agreement view)
      </legend>
      <div className="space-y-3">
        {panels.length === 0 && (
          <p className="text-xs text-zinc-600" data-testid="no-criteria-panels">
            No criterion has a default panel: <code>jury eval</code> without <code>--judges</code> uses the
            judges enabled above. Promote one from a labelled run&apos;s agreement view.
          </p>
        )}
        {panels.map(([criterion, judges]) => (
          <div
            key={criterion}
            className="rounded border border-zinc-200 p-2"
            data-testid={`panel-${criterion}`}
          >
            <div className="mb-1 flex items-center justify-between">
              <span className="text-sm">
                Panel for <code>{criterion}</code>
              </span>
              <button
                type="button"
                className="text-xs text-zinc-600 hover:underline"
                aria-label={`Remove the default panel for ${criterion}`}
                onClick={() => {
                  const { [criterion]: _, ...rest } = value.criteriaPanels;
                  set("criteriaPanels", rest);
                }}
              >
                Remove
              </button>
            </div>
            <ProvenanceNote value={value} path={`criteriaPanels.${criterion}`} />
            <ModelList
              id={`criteriaPanels.${criterion}`}
              models={judges}
              errors={err}
              onChange={(v) => set("criteriaPanels", { ...value.criteriaPanels, [criterion]: v })}
            />
            <FieldError id={`criteriaPanels.${criterion}`} error={err(`criteriaPanels.${criterion}`)} />
          </div>
        ))}
        <div className="rounded border border-zinc-200 p-2" data-testid="review-judges">
          <p className="mb-1 text-sm">
            Review judges{" "}
            <span className="text-xs text-zinc-600">
              (jury review without --judges or JUDGE_MODEL; none: the judges enabled above)
            </span>
          </p>
          <ProvenanceNote value={value} path="reviewJudges" />
          <ModelList
            id="reviewJudges"
            models={value.reviewJudges}
            errors={err}
            onChange={(v) => set("reviewJudges", v)}
          />
          <FieldError id="reviewJudges" error={err("reviewJudges")} />
        </div>
      </div>
    </fieldset>
  );
}
