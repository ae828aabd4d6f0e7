/**
 * What an import job is given: its files (a display name and where the bytes are) and its options.
 * The dashboard writes it beside the uploaded files and hands its path to the process that works
 * the job, so it crosses a process boundary: one schema, checked on read.
 */
import fs from "node:fs";
import { z } from "zod";
import { JuryError } from "../errors";

const fileRef = z.object({ name: z.string().min(1).max(500), path: z.string().min(1) });
const scale = z.tuple([z.number().int(), z.number().int()]);

export const importSpecSchema = z.object({
  setId: z.string().regex(/^[a-z]+-[A-Za-z0-9_-]{1,60}$/),
  format: z.enum(["trec", "llmbar", "jsonl"]),
  /** TREC: the gold qrels; LLMBar: dataset.json (optional); JSONL: none */
  gold: fileRef.nullable(),
  /** TREC: one qrels file per judge; LLMBar: the result.json files; JSONL: the one file */
  judges: z.array(fileRef).min(1).max(1000),
  options: z.object({
    name: z.string().max(200).optional(),
    names: z.array(z.string()).optional(),
    scale: scale.optional(),
    cut: z.number().int().optional(),
  }),
  /** who imports it (a user's name, "local", "<os user> (cli)") */
  createdBy: z.string().min(1).max(200).optional(),
  /** a folder of uploaded files to remove when the job ends */
  cleanup: z.string().optional(),
});
export type ImportSpec = z.infer<typeof importSpecSchema>;

export function readImportSpec(file: string): ImportSpec {
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch (err) {
    throw new JuryError("usage", `${file}: cannot read the import job (${(err as Error).message})`);
  }
  const r = importSpecSchema.safeParse(raw);
  if (!r.success) throw new JuryError("usage", `${file}: not an import job: ${r.error.issues[0]?.message}`);
  return r.data;
}
