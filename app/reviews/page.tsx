import { EmptyState, PageTitle } from "@/components/ui/card";

export default function ReviewsPage() {
  return (
    <div>
      <PageTitle>Reviews</PageTitle>
      <EmptyState title="Nothing here yet" testId="reviews-empty">
        Code-review judgments (criteria + diff + tests → verdict) will be listed here. This section is not
        built yet.
      </EmptyState>
    </div>
  );
}
