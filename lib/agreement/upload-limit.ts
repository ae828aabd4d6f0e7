/** What the import form says when the files are over the dashboard's upload limit. */

const CLI: Record<string, string> = {
  trec: "jury agreement import trec <gold.qrels> <judge.qrels>…",
  llmbar: "jury agreement import llmbar <result.json>… --dataset <dataset.json>",
  jsonl: "jury agreement import jsonl <file.jsonl>",
};

const mib = (n: number) =>
  n >= 1024 * 1024 ? `${Number((n / 1024 / 1024).toFixed(1))} MiB` : `${Number((n / 1024).toFixed(1))} KiB`;

export function uploadLimitMessage(totalBytes: number, maxBytes: number, format: string): string {
  return `These files are ${mib(totalBytes)} together, over the dashboard's upload limit of ${mib(maxBytes)} (JURY_UPLOAD_MAX_BYTES, read when the server starts). Import them from the command line instead, which reads each file up to JURY_MAX_FILE_BYTES: ${CLI[format] ?? CLI.trec}`;
}
