"use client";

import { describeProvenance, stillPromoted, valueAtPath } from "@/lib/settings/provenance";
import type { Settings } from "@/lib/settings/schema";

/**
 * Where a promoted setting came from ("from experiment exp_… on 2026-11-23: precision 0.82 [0.71,
 * 0.91] n=20"), and whether a hand edit has changed it since: stored as changed, or changed in this
 * draft (saving will mark it).
 */
export function ProvenanceNote({ value, path }: { value: Settings; path: string }) {
  const entry = value.provenance[path];
  if (!entry) return null;
  const edited = entry.overriddenAt === undefined && !stillPromoted(entry.value, valueAtPath(value, path));
  const overridden = entry.overriddenAt !== undefined;
  return (
    <div
      className={`mb-2 rounded border px-2 py-1 text-xs ${overridden || edited ? "border-amber-300 bg-amber-50 text-amber-900" : "border-indigo-200 bg-indigo-50 text-indigo-900"}`}
      data-testid={`provenance-${path}`}
      data-overridden={overridden || edited ? "true" : undefined}
    >
      <span className="font-medium">Promoted</span> {describeProvenance(entry)}
      {edited && (
        <span className="block" data-testid="provenance-edited">
          You changed a promoted value: saving marks it changed by hand (its figures describe the promoted
          values).
        </span>
      )}
    </div>
  );
}
