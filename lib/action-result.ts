import { ZodError } from "zod";
import { fieldErrorsOf } from "./settings/schema";

/** What every server action returns: data, or a plain error with per-field messages. */
export type ActionResult<T> =
  | { ok: true; data: T }
  | { ok: false; error: string; fieldErrors: Record<string, string> };

/** A failed action: the message, and the per-field messages of a zod error or given by hand. */
export function actionFailed(
  error: string,
  fields: ZodError | Record<string, string> = {},
): { ok: false; error: string; fieldErrors: Record<string, string> } {
  return { ok: false, error, fieldErrors: fields instanceof ZodError ? fieldErrorsOf(fields) : fields };
}
