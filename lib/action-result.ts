/** What every server action returns: data, or a plain error with per-field messages. */
export type ActionResult<T> =
  | { ok: true; data: T }
  | { ok: false; error: string; fieldErrors: Record<string, string> };
