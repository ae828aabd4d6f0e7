import Link from "next/link";
import { connection } from "next/server";
import { Card, EmptyState, PageTitle } from "@/components/ui/card";
import { getDb } from "@/db/client";
import { getOverview } from "@/db/queries/overview";
import { enabledJudges } from "@/lib/settings/schema";
import { readSettings } from "@/lib/settings/store";

export default async function HomePage() {
  await connection();
  const db = getDb();
  const o = getOverview(db);
  const judges = enabledJudges(readSettings(db));
  const stats = [
    { label: "Runs", value: o.runs, testId: "count-runs" },
    { label: "Running now", value: o.runningRuns, testId: "count-running" },
    { label: "Judge samples stored", value: o.samples, testId: "count-samples" },
    { label: "Judges enabled", value: judges.length, testId: "count-judges" },
    { label: "Memories", value: o.memories, testId: "count-memories" },
    { label: "Retrieval experiments", value: o.experiments, testId: "count-experiments" },
    { label: "Code reviews", value: o.reviews, testId: "count-reviews" },
  ];
  return (
    <div className="space-y-6">
      <PageTitle>Overview</PageTitle>
      <div className="grid grid-cols-2 gap-3 sm:grid-cols-4 lg:grid-cols-7">
        {stats.map((s) => (
          <Card key={s.label}>
            <div className="text-2xl font-semibold tabular-nums" data-testid={s.testId}>
              {s.value}
            </div>
            <div className="text-xs text-zinc-500">{s.label}</div>
          </Card>
        ))}
      </div>
      {o.runs === 0 && o.memories === 0 && o.reviews === 0 && (
        <EmptyState title="No runs yet. Where to start:" testId="home-empty">
          <ol className="list-decimal space-y-1 pl-5">
            <li>
              <Link className="text-indigo-700 underline" href="/settings">
                Settings
              </Link>
              : enable a provider and its models. Keys come from the environment (<code>OPENAI_API_KEY</code>,{" "}
              <code>ANTHROPIC_API_KEY</code>, <code>GOOGLE_GENERATIVE_AI_API_KEY</code>, or{" "}
              <code>JURY_LOCAL_BASE_URL</code> for Ollama and other OpenAI-compatible servers). The{" "}
              <em>mock</em> provider is on by default: it is not a model, but lets you try everything offline.
            </li>
            <li>
              Choose N, the samples each judge takes per item (default 3), and the temperature (default 0.8).
            </li>
            <li>
              Start a run from{" "}
              <Link className="text-indigo-700 underline" href="/runs">
                Runs
              </Link>{" "}
              or with <code>npx jury eval examples/suites/qa</code>.
            </li>
            <li>
              Measure memory retrieval on the example study in{" "}
              <Link className="text-indigo-700 underline" href="/memory">
                Memory study
              </Link>
              , or judge a code change with <code>npx jury review --help</code>.
            </li>
          </ol>
        </EmptyState>
      )}
      <p className="text-xs text-zinc-500">Judges enabled: {judges.length ? judges.join(", ") : "none"}</p>
    </div>
  );
}
