/** Returns a copy of `obj` with the value at a dotted path replaced. */
export function updateAt<T>(obj: T, path: string, value: unknown): T {
  const [head, ...rest] = path.split(".");
  const src = obj as Record<string, unknown>;
  const next: Record<string, unknown> | unknown[] = Array.isArray(obj) ? [...obj] : { ...src };
  const child = rest.length === 0 ? value : updateAt(src[head] as unknown, rest.join("."), value);
  (next as Record<string, unknown>)[head] = child;
  return next as T;
}
