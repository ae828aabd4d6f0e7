import { EmptyState, PageTitle } from "@/components/ui/card";

export default function CriteriaPage() {
  return (
    <div>
      <PageTitle>Criteria</PageTitle>
      <EmptyState title="Nothing here yet" testId="criteria-empty">
        Criteria are folders under criteria/ with a definition.json and a README.md. This section is not built
        yet.
      </EmptyState>
    </div>
  );
}
