import { EmptyState, PageTitle } from "@/components/ui/card";

export default function MemorystudyPage() {
  return (
    <div>
      <PageTitle>Memory study</PageTitle>
      <EmptyState title="Nothing here yet" testId="memory-empty">
        Import memories, annotate ground truth for a precision study and compare retrieval configurations.
        This section is not built yet.
      </EmptyState>
    </div>
  );
}
