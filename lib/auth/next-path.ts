/** Where a sign-in goes on to: a path on this server only (never `//host` or a URL), else the overview. */
export function safeNextPath(value: unknown): string {
  if (
    typeof value !== "string" ||
    !value.startsWith("/") ||
    value.startsWith("//") ||
    value.startsWith("/\\")
  )
    return "/";
  for (const ch of value) if (ch.charCodeAt(0) < 0x20 || ch === "\\") return "/";
  return value.slice(0, 2_000);
}
