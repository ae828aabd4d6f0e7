import { Card } from "@/components/ui/card";
import { ScrollTable } from "@/components/ui/scroll-table";
import { TableHead } from "@/components/ui/table-head";
import type { PairedComparison } from "@/lib/memory/study-metrics";

type Consistency = { n: number; identical: number; meanJaccard: number };

type Props = {
  experiments: { id: string; label: string }[];
  /** the experiments picked as A and B (the page's ?a= and ?b=, else two different ones) */
  a: string | undefined;
  b: string | undefined;
  /** why A or B is partial, when one is */
  partialNotices: (string | undefined)[];
  /** B − A per metric and how often they keep the same set */
  paired: PairedComparison[] | null;
  consistency: Consistency | null;
};

/** Two configurations picked as A and B, and B − A per query over the queries both finished. */
export function PairedComparisonCard({ experiments, a, b, partialNotices, paired, consistency }: Props) {
  return (
    <Card title="Paired comparison (B − A, per query)">
      <PickForm experiments={experiments} a={a} b={b} />
      {partialNotices.length > 0 && (
        <p className="mb-2 text-xs text-amber-800" data-testid="paired-incomplete">
          {partialNotices.join("; ")}: the comparison covers only the queries both finished.
        </p>
      )}
      {paired && consistency && <PairedTable paired={paired} consistency={consistency} />}
    </Card>
  );
}

/** A GET form: the picks go into the address, so a comparison can be linked to. */
function PickForm({ experiments, a, b }: Pick<Props, "experiments" | "a" | "b">) {
  return (
    // a select is as wide as its longest option: each takes the room there is and no more (a phone)
    <form method="get" className="mb-3 flex flex-wrap items-center gap-2 text-sm">
      {(["a", "b"] as const).map((k) => (
        <label key={k} className="flex min-w-0 max-w-full flex-[1_1_16rem] items-center gap-1">
          <span className="shrink-0">{k.toUpperCase()}</span>
          <select
            name={k}
            defaultValue={k === "a" ? a : b}
            data-testid={`paired-${k}`}
            className="w-full min-w-0 max-w-full truncate rounded border border-zinc-300 px-2 py-1 text-sm"
          >
            {experiments.map((e) => (
              <option key={e.id} value={e.id}>
                {e.id} · {e.label}
              </option>
            ))}
          </select>
        </label>
      ))}
      <button type="submit" className="rounded bg-indigo-600 px-3 py-1 text-white">
        Compare
      </button>
    </form>
  );
}

function PairedTable({ paired, consistency }: { paired: PairedComparison[]; consistency: Consistency }) {
  return (
    <ScrollTable label="Paired comparison">
      <table className="w-full text-left text-sm tabular-nums" data-testid="paired-table">
        <TableHead
          columns={[
            "Metric",
            "B − A",
            "95 % interval",
            { label: "p (sign-flip)", title: "exact sign-flip randomisation test over queries" },
            "Queries",
          ]}
        />
        <tbody>
          {paired.map((p) => (
            <tr key={p.metric}>
              <td>{p.metric}</td>
              <td>
                {Number.isFinite(p.meanDiff)
                  ? `${p.meanDiff >= 0 ? "+" : ""}${(p.meanDiff * 100).toFixed(1)} pts`
                  : "—"}
              </td>
              <td>
                {Number.isFinite(p.low) ? `[${(p.low * 100).toFixed(1)}, ${(p.high * 100).toFixed(1)}]` : "—"}
              </td>
              <td>{p.p.toFixed(3)}</td>
              <td>{p.n}</td>
            </tr>
          ))}
          <tr>
            <td title="run the same judge configuration twice with different shuffle salts to read this as order consistency">
              Kept-set agreement
            </td>
            <td colSpan={4}>
              identical on {consistency.identical} of {consistency.n} queries · mean Jaccard{" "}
              {Number.isFinite(consistency.meanJaccard) ? consistency.meanJaccard.toFixed(2) : "—"}
            </td>
          </tr>
        </tbody>
      </table>
    </ScrollTable>
  );
}
