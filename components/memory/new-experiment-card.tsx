import { Card, EmptyState } from "@/components/ui/card";
import { ExperimentForm } from "./experiment-form";

type Props = {
  collection: string;
  /** the study's queries: none, and there is nothing to run over */
  queries: number;
  defaultModel: string;
  judges: string[];
  defaultMode: "auto" | "search";
  defaultTopK: number;
  bm25Depth: number;
};

/** The form that runs a configuration over every query, or why there is nothing to run it over. */
export function NewExperimentCard({ collection, queries, ...form }: Props) {
  if (queries === 0)
    return (
      <EmptyState title="No study queries">
        This collection has memories but no queries to measure with. Import a study (
        <code>jury memory import-study</code>) or a BEIR collection.
      </EmptyState>
    );
  return (
    <Card title="Run a configuration over every query">
      <ExperimentForm collection={collection} {...form} />
    </Card>
  );
}
