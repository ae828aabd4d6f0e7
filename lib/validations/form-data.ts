import { actionFailed } from "@/lib/action-result";

/**
 * Server actions are public POST endpoints: a client can send any argument list, not only what
 * the app's forms send. Each action checks the shape of its arguments with `wrongShape` before
 * touching them, and returns the failure it gives instead of throwing a TypeError.
 */
export type ArgShape = "form data" | "a string" | "an object";

function shapeOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (value instanceof FormData) return "form data";
  if (typeof value === "object") return "an object";
  return typeof value === "string" ? "a string" : `a ${typeof value}`;
}

function fits(value: unknown, shape: ArgShape): boolean {
  switch (shape) {
    case "form data":
      return value instanceof FormData;
    case "a string":
      return typeof value === "string";
    case "an object":
      return (
        typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof FormData)
      );
  }
}

/** Null when `value` has the expected shape; otherwise the typed failure the action returns. */
export function wrongShape(value: unknown, shape: ArgShape): ReturnType<typeof actionFailed> | null {
  return fits(value, shape) ? null : actionFailed(`Bad request: expected ${shape}, got ${shapeOf(value)}.`);
}
