import path from "node:path";
import { parseJsonLoose } from "../judging/parse-json";
import { diagnosisAnswerSchema } from "./judgment";
import type { TranscriptDigest } from "./transcript";

/**
 * The retry feedback of a transcript diagnosis: the judge's four fields (approach, point of
 * failure, root cause, suggestion) and the files the transcript's own tool calls read and edited.
 * An answer that is not JSON, or lacks a field, is "Diagnosis unavailable" with the reason (and what
 * the transcript shows), never a sentence with gaps in it.
 */

/** How feedback that is no diagnosis starts: the CLI and the review page label it as such. */
export const DIAGNOSIS_UNAVAILABLE = "Diagnosis unavailable";

export const isDiagnosisUnavailable = (feedback: string) => feedback.startsWith(DIAGNOSIS_UNAVAILABLE);

/** How many files of each list the feedback names; the rest are counted. */
const FILES_SHOWN = 8;

export function diagnosisFeedback(answer: string, digest: TranscriptDigest): string {
  const files = filesLine(digest);
  const parsed = parseJsonLoose(answer);
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
    const said = answer.trim().replace(/\s+/g, " ");
    const quoted = said
      ? ` (${JSON.stringify(said.length > 200 ? `${said.slice(0, 200)}…` : said)})`
      : " (it was empty)";
    return `${DIAGNOSIS_UNAVAILABLE}: the judge's answer was not JSON${quoted}. From the transcript: ${files ?? "no file read or edited"}.`;
  }
  const p = diagnosisAnswerSchema.safeParse(parsed);
  if (!p.success) {
    const lacking = [...new Set(p.error.issues.map((i) => String(i.path[0] ?? "the answer")))];
    return `${DIAGNOSIS_UNAVAILABLE}: the judge's answer lacks ${listed(lacking)}. From the transcript: ${files ?? "no file read or edited"}.`;
  }
  const d = p.data;
  return `Previous attempt tried ${d.approach} (${files ?? "the transcript records no file read or edited"}). It failed at ${d.point_of_failure} because ${d.root_cause}. Suggestion: ${d.suggestion}`;
}

/** "read a, b; edited c", paths relative to the session's folder; undefined when there are none. */
function filesLine(d: TranscriptDigest): string | undefined {
  const rel = (f: string) => {
    if (!d.cwd || !path.isAbsolute(f)) return f;
    const r = path.relative(d.cwd, f);
    return r && !r.startsWith("..") && !path.isAbsolute(r) ? r : f;
  };
  const list = (xs: string[]) =>
    `${xs.slice(0, FILES_SHOWN).map(rel).join(", ")}${xs.length > FILES_SHOWN ? ` and ${xs.length - FILES_SHOWN} more` : ""}`;
  const parts = [
    d.filesRead.length ? `read ${list(d.filesRead)}` : "",
    d.filesEdited.length ? `edited ${list(d.filesEdited)}` : "",
  ].filter(Boolean);
  return parts.length ? parts.join("; ") : undefined;
}

const listed = (xs: string[]) =>
  xs.length < 2 ? xs.join("") : `${xs.slice(0, -1).join(", ")} and ${xs.at(-1)}`;
