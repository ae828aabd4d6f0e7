/** A model's raw answer, folded away under "raw output". */
export function RawOutput({ text }: { text: string | null | undefined }) {
  if (!text) return null;
  return (
    <details className="mt-1">
      <summary className="cursor-pointer text-xs text-zinc-500">raw output</summary>
      <pre className="mt-1 max-h-64 overflow-auto whitespace-pre-wrap rounded bg-zinc-50 p-2 text-xs">
        {text}
      </pre>
    </details>
  );
}
