import { ZodError } from "zod";
import { fieldErrorsOf } from "./settings/schema";

/**
 * What every server action returns: data, or a plain error with per-field messages (`status` 403: the
 * signed-in role may not do this, and nothing was changed).
 */
export type ActionResult<T> =
  | { ok: true; data: T }
  | { ok: false; error: string; fieldErrors: Record<string, string>; status?: 403 };

/** A failed action: the message, and the per-field messages of a zod error or given by hand. */
export function actionFailed(
  error: string,
  fields: ZodError | Record<string, string> = {},
): { ok: false; error: string; fieldErrors: Record<string, string> } {
  return { ok: false, error, fieldErrors: fields instanceof ZodError ? fieldErrorsOf(fields) : fields };
}
