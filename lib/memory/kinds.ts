/** The retrieval configurations a study compares: one list, used by the CLI, the form, the schema and the labels. */
export const RETRIEVAL_KINDS = ["bm25", "single", "dual_strict", "dual_lenient"] as const;
export type RetrievalKind = (typeof RETRIEVAL_KINDS)[number];

/** Short labels (experiment names) and the form's longer descriptions. */
export const RETRIEVAL_KIND_LABELS: Record<RetrievalKind, { short: string; long: string }> = {
  bm25: { short: "BM25", long: "BM25 only" },
  single: { short: "single judge", long: "single judge" },
  dual_strict: { short: "dual strict", long: "dual judge, strict (intersection)" },
  dual_lenient: { short: "dual lenient", long: "dual judge, lenient (union)" },
};

export const RETRIEVAL_MODES = ["auto", "search"] as const;
