// Per-field input budgets for judge prompts. No imports: the dashboard's estimate table uses it too.

/** Largest case field (output, prompt, context, reference, profile, hint) sent to a judge, in characters (declared, with its default, in lib/env/registry.ts). */
export const MAX_FIELD_CHARS_ENV = "JURY_MAX_FIELD_CHARS";

const fmt = (n: number) => n.toLocaleString("en-US");

/**
 * Cuts a field to `budget` characters, marker included: its beginning, then
 * "[… truncated by Jury: N of M characters omitted …]".
 */
export function truncateField(text: string, budget: number): string {
  if (text.length <= budget) return text;
  const marker = (omitted: number) =>
    `\n[… truncated by Jury: ${fmt(omitted)} of ${fmt(text.length)} characters omitted …]`;
  let keep = Math.max(0, budget - marker(text.length).length);
  // never split a surrogate pair
  const c = text.charCodeAt(keep - 1);
  if (keep > 0 && c >= 0xd800 && c <= 0xdbff) keep--;
  return text.slice(0, keep) + marker(text.length - keep);
}

/** A case field over its budget: it is sent cut, with the truncation marker. */
export type BudgetWarning = { caseId: string; field: string; chars: number; budget: number };

/** One line per warning, for the CLI and the dashboard. */
export function budgetWarningText(w: BudgetWarning): string {
  return `case "${w.caseId}": ${w.field} is ${fmt(w.chars)} characters, over the ${fmt(w.budget)}-character budget (${MAX_FIELD_CHARS_ENV}); the judge gets the first part with a truncation marker`;
}
