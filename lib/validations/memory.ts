import { z } from "zod";
import { COLLECTION_NAME } from "../memory/collection";
import { RETRIEVAL_KINDS, RETRIEVAL_MODES } from "../memory/kinds";

export const collectionSchema = z.string().regex(COLLECTION_NAME, "Not a collection name");

export const annotateSchema = z.object({
  collection: collectionSchema,
  queryId: z.string().min(1).max(200),
  memoryId: z.string().min(1).max(200),
  relevant: z.boolean(),
});

export const experimentFormSchema = z
  .object({
    collection: collectionSchema,
    kind: z.enum(RETRIEVAL_KINDS),
    mode: z.enum(RETRIEVAL_MODES),
    topK: z.coerce.number().int().min(1, "At least 1").max(100, "At most 100"),
    poolSize: z.coerce.number().int().min(1, "At least 1").max(100, "At most 100"),
    shuffle: z.boolean(),
    model: z.string().trim().optional(),
    n: z.coerce.number().int().min(1, "At least 1").max(10, "At most 10"),
  })
  .refine((v) => v.kind === "bm25" || /^[^:]+:.+$/.test(v.model ?? ""), {
    message: "A judge configuration needs a judge model, like local:llama3.1:8b",
    path: ["model"],
  });
