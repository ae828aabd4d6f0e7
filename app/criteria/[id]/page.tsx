import Link from "next/link";
import { notFound } from "next/navigation";
import { connection } from "next/server";
import type { ReactNode } from "react";
import { currentActor } from "@/app/guard";
import { Markdown } from "@/components/criteria/markdown";
import { PlaygroundForm } from "@/components/criteria/playground-form";
import { Card, PageTitle } from "@/components/ui/card";
import { getDb } from "@/db/client";
import { actionRoles, roleAllows } from "@/lib/auth/roles";
import { loadProjectCriteria } from "@/lib/criteria/load";
import { responseJsonSchema } from "@/lib/judging/prompt";
import { enabledJudges } from "@/lib/settings/providers";
import { readSettings } from "@/lib/settings/store";

const ID = /^[a-z0-9][a-z0-9_-]*$/;

/** A criterion's README, prompt template, response schema or function, and a playground to try it. */
export default async function CriterionPage({ params }: { params: Promise<{ id: string }> }) {
  await connection();
  const { id } = await params;
  // a malformed or unknown id is a 404, never a 500
  if (!ID.test(id)) notFound();
  const def = loadProjectCriteria().criteria.get(id);
  if (!def) notFound();
  const settings = await readSettings(getDb());
  const actor = await currentActor();
  const [lo, hi] = def.scoring.scale;
  const facts: [string, ReactNode][] = [
    ["Type", def.type === "llm" ? "LLM (judged by models)" : "deterministic (code)"],
    ["Version", def.version],
    ["Scale", `${lo}–${hi}`],
    ["Default threshold", def.scoring.default_threshold],
    ...(def.type === "deterministic"
      ? ([["Function", <code key="fn">{def.function}</code>]] as [string, ReactNode][])
      : []),
    ["Tags", def.tags.length ? def.tags.join(" · ") : "—"],
    ["Folder", <code key="folder">criteria/{def.id}/</code>],
  ];
  return (
    <div className="space-y-4">
      <nav aria-label="Breadcrumb" className="text-sm">
        <Link href="/criteria" className="text-indigo-700 underline">
          Criteria
        </Link>{" "}
        / <span className="font-mono">{def.id}</span>
      </nav>
      <PageTitle>{def.name}</PageTitle>
      <p className="-mt-2 text-sm text-zinc-700">{def.description}</p>
      <Card>
        <dl
          className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm sm:grid-cols-[auto_1fr_auto_1fr]"
          data-testid="criterion-facts"
        >
          {facts.map(([k, v]) => (
            <div key={k} className="contents">
              <dt className="text-zinc-600">{k}</dt>
              <dd data-testid={`fact-${k.toLowerCase().replaceAll(" ", "-")}`}>{v}</dd>
            </div>
          ))}
        </dl>
      </Card>

      <Card title={`Try ${def.id} on an input`} testId="playground">
        <p className="mb-3 text-xs text-zinc-600">
          {def.type === "llm"
            ? `Each judge is sent the prompt below with your input, N times at temperature ${settings.judging.temperature}, and the samples are aggregated as in a run. No run is created; answers are cached like any call (the same input again costs nothing).`
            : "The check runs once in the criteria worker, with the parameters below. No run is created."}
        </p>
        <PlaygroundForm
          criterionId={def.id}
          type={def.type}
          judges={enabledJudges(settings)}
          defaultN={settings.judging.samples}
          defaultParams={def.type === "deterministic" ? JSON.stringify(def.parameters, null, 2) : undefined}
          canEditSettings={actor !== null && roleAllows(actor.role, actionRoles.saveSettings)}
        />
      </Card>

      {def.type === "llm" ? (
        <div className="grid gap-4 lg:grid-cols-2">
          <Card title="Prompt template" testId="prompt-template">
            <pre className="whitespace-pre-wrap break-words text-xs leading-relaxed">
              {def.prompt_template}
            </pre>
            <p className="mt-2 text-xs text-zinc-600">
              Then the suite&apos;s hint and focus areas, and the case&apos;s prompt, context, reference and
              output, each in a <code>&lt;data&gt;</code> block the judge is told never to take instructions
              from.
            </p>
          </Card>
          <Card title="Response schema" testId="response-schema">
            <table className="text-left text-sm">
              <thead>
                <tr className="text-xs text-zinc-600">
                  <th scope="col" className="pb-1 font-medium">
                    Field
                  </th>
                  <th scope="col" className="pb-1 font-medium">
                    Type
                  </th>
                </tr>
              </thead>
              <tbody>
                {Object.entries(def.response_schema).map(([k, t]) => (
                  <tr key={k} className="border-t border-zinc-100">
                    <td className="py-0.5 font-mono text-xs">{k}</td>
                    <td className="py-0.5">{t}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <p className="mt-3 text-xs text-zinc-600">Sent as the structured-output JSON schema:</p>
            <pre className="mt-1 whitespace-pre-wrap break-words rounded bg-zinc-50 p-2 text-xs">
              {JSON.stringify(responseJsonSchema(def), null, 2)}
            </pre>
          </Card>
        </div>
      ) : (
        <Card title="Logic" testId="criterion-logic">
          <p className="text-sm">
            <code>{def.function}</code> exported by <code>criteria/{def.id}/logic.ts</code>, run in a worker
            thread with a time limit. Default parameters:
          </p>
          <pre className="mt-1 whitespace-pre-wrap break-words rounded bg-zinc-50 p-2 text-xs">
            {JSON.stringify(def.parameters, null, 2)}
          </pre>
        </Card>
      )}

      <Card title="README" testId="criterion-readme">
        {def.readme ? (
          <Markdown text={def.readme} />
        ) : (
          <p className="text-sm text-zinc-600">
            No README.md in <code>criteria/{def.id}/</code>: add one saying what it measures and when to use
            it.
          </p>
        )}
      </Card>
    </div>
  );
}
