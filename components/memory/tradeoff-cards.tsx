import { TradeoffChart, type TradeoffPoint } from "@/components/charts/tradeoff-chart";
import { Card } from "@/components/ui/card";

type Props = {
  /** finished configurations only: a partial run's precision is not its precision */
  points: TradeoffPoint[];
  /** configurations left out because they did not finish */
  unfinished: number;
  /** finished configurations with no price, left out of the cost chart */
  unpriced: number;
};

/** Precision against latency and against cost, side by side, saying what each leaves out. */
export function TradeoffCards({ points, unfinished, unpriced }: Props) {
  return (
    <div className="grid gap-4 md:grid-cols-2">
      <Card
        title={`Precision vs latency (${points.length} finished configuration${points.length === 1 ? "" : "s"}${unfinished ? `; ${unfinished} unfinished not shown` : ""})`}
      >
        <TradeoffChart points={points} x="latencyMs" />
      </Card>
      <Card
        title={`Precision vs cost (${points.length - unpriced} finished configuration${points.length - unpriced === 1 ? "" : "s"}${unpriced ? `; ${unpriced} unpriced not shown` : ""}${unfinished ? `; ${unfinished} unfinished not shown` : ""})`}
      >
        <TradeoffChart points={points} x="costPerMonth" />
      </Card>
    </div>
  );
}
