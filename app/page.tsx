import Link from "next/link";
import { connection } from "next/server";
import type { ReactNode } from "react";
import { StatusBadge } from "@/components/runs/status-badge";
import { Card, EmptyState, PageTitle } from "@/components/ui/card";
import { getDb } from "@/db/client";
import { getOverview, getRecentActivity } from "@/db/queries/overview";
import { pathRole, roleAllows } from "@/lib/auth/roles";
import { enabledJudges } from "@/lib/settings/providers";
import { readSettings } from "@/lib/settings/store";
import { currentActor } from "./guard";

const when = (d: Date) => `${d.toISOString().replace("T", " ").slice(0, 16)} UTC`;
const link = "text-indigo-700 underline";

const verdictStyle = {
  pass: "bg-green-100 text-green-900",
  partial: "bg-amber-100 text-amber-900",
  fail: "bg-red-100 text-red-900",
} as const;

/** A list of recent items, or what to do to get the first one. */
function Recent({
  title,
  more,
  empty,
  testId,
  children,
}: {
  title: string;
  more: { href: string; label: string };
  empty?: ReactNode;
  testId: string;
  children: ReactNode[];
}) {
  return (
    <Card
      testId={testId}
      title={
        <span className="flex items-baseline justify-between gap-2">
          <span>{title}</span>
          <Link href={more.href} className="text-xs font-normal text-indigo-700 underline">
            {more.label}
          </Link>
        </span>
      }
    >
      {children.length === 0 ? (
        <p className="text-sm text-zinc-600" data-testid={`${testId}-empty`}>
          {empty}
        </p>
      ) : (
        <ul className="divide-y divide-zinc-100 text-sm">{children}</ul>
      )}
    </Card>
  );
}

export default async function HomePage() {
  await connection();
  const db = getDb();
  const o = await getOverview(db);
  const recent = await getRecentActivity(db);
  const judges = enabledJudges(await readSettings(db));
  // Settings is the admin's page: others read its name, with whom to ask, instead of a link to a 403
  const actor = await currentActor();
  const settings =
    actor && roleAllows(actor.role, pathRole("/settings")) ? (
      <Link className={link} href="/settings">
        Settings
      </Link>
    ) : (
      <>Settings (an admin&apos;s page: ask one)</>
    );
  const stats = [
    { label: "Runs", value: o.runs, testId: "count-runs" },
    { label: "Running now", value: o.runningRuns, testId: "count-running" },
    { label: "Judge samples stored", value: o.samples, testId: "count-samples" },
    { label: "Judges enabled", value: judges.length, testId: "count-judges" },
    { label: "Memories", value: o.memories, testId: "count-memories" },
    { label: "Retrieval experiments", value: o.experiments, testId: "count-experiments" },
    { label: "Code reviews", value: o.reviews, testId: "count-reviews" },
  ];
  const nothingYet = o.runs === 0 && o.memories === 0 && o.reviews === 0;
  return (
    <div className="space-y-6">
      <PageTitle>Overview</PageTitle>
      <div className="grid grid-cols-2 gap-3 sm:grid-cols-4 lg:grid-cols-7">
        {stats.map((s) => (
          <Card key={s.label}>
            <div className="text-2xl font-semibold tabular-nums" data-testid={s.testId}>
              {s.value}
            </div>
            <div className="text-xs text-zinc-600">{s.label}</div>
          </Card>
        ))}
      </div>

      {judges.length === 0 && (
        <p
          role="status"
          className="rounded border border-amber-300 bg-amber-50 p-3 text-sm text-amber-900"
          data-testid="no-judges"
        >
          No judge is enabled, so no run can start. Open {settings} and enable a provider and its models (or
          the <em>mock</em> provider, which is not a model, to try Jury offline).
        </p>
      )}

      {nothingYet && (
        <EmptyState title="Nothing measured yet. Where to start:" testId="home-empty">
          <ol className="list-decimal space-y-1 pl-5">
            <li>
              {settings}: enable a provider and its models. Keys come from the environment (
              <code>OPENAI_API_KEY</code>, <code>ANTHROPIC_API_KEY</code>,{" "}
              <code>GOOGLE_GENERATIVE_AI_API_KEY</code>, or <code>JURY_LOCAL_BASE_URL</code> for Ollama and
              other OpenAI-compatible servers). The <em>mock</em> provider is not a model, but lets you try
              everything offline.
            </li>
            <li>
              Choose N, the samples each judge takes per item (default 3), and the temperature (default 0.8).
            </li>
            <li>
              Try a criterion on one input of your own in{" "}
              <Link className={link} href="/criteria">
                Criteria
              </Link>
              , then start a run from{" "}
              <Link className={link} href="/runs">
                Runs
              </Link>{" "}
              or with <code>npx jury eval examples/suites/qa</code>.
            </li>
            <li>
              Measure memory retrieval on the example study in{" "}
              <Link className={link} href="/memory">
                Memory study
              </Link>
              , or judge a code change with <code>npx jury review --help</code>.
            </li>
          </ol>
        </EmptyState>
      )}

      <div className="grid gap-4 lg:grid-cols-3">
        <Recent
          title="Recent runs"
          testId="recent-runs"
          more={{ href: "/runs", label: "all runs" }}
          empty={
            <>
              No run yet: pick a suite, judges and N on{" "}
              <Link className={link} href="/runs">
                Runs
              </Link>
              , or run <code>npx jury eval examples/suites/qa</code>.
            </>
          }
        >
          {recent.runs.map((r) => (
            <li key={r.id} className="py-2" data-testid="recent-run">
              <div className="flex flex-wrap items-center justify-between gap-2">
                <Link href={`/runs/${r.id}`} className={`${link} font-medium`}>
                  {r.suiteName}
                </Link>
                <StatusBadge status={r.status} />
              </div>
              <div className="mt-0.5 flex flex-wrap gap-x-3 text-xs text-zinc-600">
                <span className="tabular-nums">
                  {r.finished} of {r.totalTasks} tasks
                  {r.failed > 0 && `, ${r.failed} failed`}
                </span>
                <span>
                  {r.judges.length} judge{r.judges.length === 1 ? "" : "s"} × N={r.n}
                </span>
                <span>{when(r.createdAt)}</span>
              </div>
            </li>
          ))}
        </Recent>

        <Recent
          title="Recent retrieval experiments"
          testId="recent-experiments"
          more={{ href: "/memory", label: "all studies" }}
          empty={
            <>
              No experiment yet: import the example study on{" "}
              <Link className={link} href="/memory">
                Memory study
              </Link>{" "}
              and run BM25 against a judge.
            </>
          }
        >
          {recent.experiments.map((e) => (
            <li key={e.id} className="py-2" data-testid="recent-experiment">
              <div className="flex flex-wrap items-center justify-between gap-2">
                <Link href={`/memory/${encodeURIComponent(e.collection)}`} className={`${link} font-medium`}>
                  {e.label}
                </Link>
                <StatusBadge status={e.status} />
              </div>
              <div className="mt-0.5 flex flex-wrap gap-x-3 text-xs text-zinc-600">
                <span className="font-mono">{e.collection}</span>
                <span>{when(e.createdAt)}</span>
              </div>
            </li>
          ))}
        </Recent>

        <Recent
          title="Recent code reviews"
          testId="recent-reviews"
          more={{ href: "/reviews", label: "all reviews" }}
          empty={
            <>
              No review yet: judge a change with{" "}
              <code>npx jury review --diff change.diff --criteria criteria.md</code> (see{" "}
              <code>examples/reviews</code>).
            </>
          }
        >
          {recent.reviews.map((r) => (
            <li key={r.id} className="py-2" data-testid="recent-review">
              <div className="flex flex-wrap items-center justify-between gap-2">
                <Link href={`/reviews/${r.id}`} className={`${link} min-w-0 break-words font-medium`}>
                  {r.title}
                </Link>
                <span className={`rounded px-2 py-0.5 text-xs font-medium ${verdictStyle[r.verdict]}`}>
                  {r.verdict}
                  {r.score !== null && ` · ${r.score.toFixed(1)}`}
                </span>
              </div>
              <div className="mt-0.5 text-xs text-zinc-600">{when(r.createdAt)}</div>
            </li>
          ))}
        </Recent>
      </div>

      <p className="text-xs text-zinc-600" data-testid="judges-enabled">
        Judges enabled: {judges.length ? judges.join(", ") : "none"}
      </p>
    </div>
  );
}
