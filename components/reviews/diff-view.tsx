/** A unified diff with added, removed, hunk and file lines coloured. Text only: nothing is executed or parsed as HTML. */
export function DiffView({ diff }: { diff: string }) {
  const lines = diff.split("\n");
  const cls = (l: string) =>
    l.startsWith("diff --git") || l.startsWith("index ") || l.startsWith("+++") || l.startsWith("---")
      ? "text-zinc-500 font-semibold"
      : l.startsWith("@@")
        ? "bg-indigo-50 text-indigo-800"
        : l.startsWith("+")
          ? "bg-green-50 text-green-900"
          : l.startsWith("-")
            ? "bg-red-50 text-red-900"
            : l.startsWith("[")
              ? "bg-amber-50 text-amber-800 italic"
              : "text-zinc-700";
  return (
    // a scrollable region a keyboard user can reach and scroll (axe: scrollable-region-focusable)
    <section
      aria-label="The diff"
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard
      tabIndex={0}
      className="max-h-[32rem] overflow-auto rounded border border-zinc-200 bg-white focus-visible:outline-2 focus-visible:outline-indigo-500"
    >
      <pre className="text-xs leading-5" data-testid="diff-view">
        {lines.map((l, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: diff lines are positional
          <div key={i} className={`px-2 ${cls(l)}`}>
            <span className="mr-3 inline-block w-10 select-none text-right text-zinc-600">{i + 1}</span>
            {l || " "}
          </div>
        ))}
      </pre>
    </section>
  );
}
