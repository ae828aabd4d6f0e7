import { KAPPA_BANDS, READING_SOURCES } from "@/lib/agreement/reading";

const range = (i: number) => {
  if (i === 0) return "below 0";
  const lo = KAPPA_BANDS[i - 1].below;
  const hi = KAPPA_BANDS[i].below;
  return Number.isFinite(hi)
    ? `${lo === 0 ? "0" : (lo + 0.01).toFixed(2)}–${hi.toFixed(2)}`
    : `${(lo + 0.01).toFixed(2)}–1`;
};

/** A short guide beside κ and α figures: the usual bands, their sources, and that they are conventions. */
export function ReadingGuide() {
  return (
    <details className="text-xs text-zinc-600" data-testid="reading-guide">
      <summary className="cursor-pointer text-indigo-700">How to read κ and α</summary>
      <div className="mt-1 space-y-1">
        <p>
          1 is perfect agreement, 0 is what chance alone would give, below 0 is worse than chance. Landis
          &amp; Koch&apos;s bands for κ: {KAPPA_BANDS.map((b, i) => `${range(i)} ${b.label}`).join(" · ")}.
          For α, Krippendorff relies on α ≥ 0.80 and draws only tentative conclusions from 0.67 to 0.80.
        </p>
        <p>
          These bands are conventions, not tests: the same κ means more with many categories than with two,
          and less when one label is rare. Read the interval: a κ of 0.45 [0.20, 0.70] could be fair or
          substantial.
        </p>
        <p className="text-zinc-500">
          Sources: {READING_SOURCES.landisKoch} {READING_SOURCES.krippendorff}
        </p>
      </div>
    </details>
  );
}
