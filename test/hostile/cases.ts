/**
 * The hostile input corpus: every fixture under test/hostile/corpus/, the entry point that reads it,
 * and the text its error must contain (the file or folder, and the field or line where there is one).
 * corpus.test.ts checks that this table and the folders on disk list the same cases.
 */

/** criteria/<case>/<folder>/definition.json, read by loadCriteria: the error must name this folder and field. */
export type CriterionCase = { case: string; folder: string; field: string; expect: string[] };
/** A folder read by a CLI command; `expect` must all appear on stderr; `exit` (default: any non-zero). */
export type FolderCase = { case: string; expect: string[]; exit?: number };
/** reviews/<case>/: `jury review` with these arguments ({dir} is the case folder). */
export type ReviewCase = { case: string; args: string[]; expect: string[]; exit?: number };
/** hook/<case>: the hook's stdin; `expect` must all appear in the hook log. */
export type HookCase = { case: string; expect: string[] };

export const criteriaCases: CriterionCase[] = [
  { case: "invalid-json", folder: "invalid-json", field: "definition.json", expect: ["invalid JSON"] },
  { case: "empty-file", folder: "empty-file", field: "definition.json", expect: ["invalid JSON"] },
  { case: "unknown-type", folder: "unknown-type", field: "type", expect: ['"llm" or "deterministic"'] },
  { case: "missing-type", folder: "missing-type", field: "type", expect: ['"llm" or "deterministic"'] },
  {
    case: "missing-prompt-template",
    folder: "missing-prompt-template",
    field: "prompt_template",
    expect: ["expected string"],
  },
  {
    case: "threshold-outside-scale",
    folder: "threshold-outside-scale",
    field: "scoring.default_threshold",
    expect: ["inside scale"],
  },
  { case: "scale-reversed", folder: "scale-reversed", field: "scoring.scale", expect: ["low < high"] },
  { case: "id-not-folder", folder: "folder-name", field: "id", expect: ['"other-name"', '"folder-name"'] },
  { case: "scale-is-string", folder: "scale-is-string", field: "scoring.scale", expect: ["expected"] },
  { case: "version-is-number", folder: "version-is-number", field: "version", expect: ["expected string"] },
  { case: "tags-is-string", folder: "tags-is-string", field: "tags", expect: ["expected array"] },
  {
    case: "threshold-is-string",
    folder: "threshold-is-string",
    field: "scoring.default_threshold",
    expect: ["expected number"],
  },
  { case: "missing-scoring", folder: "missing-scoring", field: "scoring", expect: ["expected object"] },
  {
    case: "response-schema-no-score",
    folder: "response-schema-no-score",
    field: "response_schema",
    expect: ["numeric score"],
  },
  { case: "id-bad-characters", folder: "Bad_Id", field: "id", expect: ["lowercase"] },
  {
    case: "deterministic-function-not-exported",
    folder: "det-not-exported",
    field: "function",
    expect: ['"notExported"', "logic.ts"],
  },
  {
    case: "deterministic-function-not-identifier",
    folder: "det-bad-name",
    field: "function",
    expect: ["logic.ts"],
  },
  { case: "utf16-bytes", folder: "utf16-bytes", field: "definition.json", expect: ["UTF-8"] },
  { case: "latin1-bytes", folder: "latin1-bytes", field: "definition.json", expect: ["UTF-8"] },
  { case: "json-array", folder: "json-array", field: "(root)", expect: ["expected object"] },
  { case: "json-number", folder: "json-number", field: "(root)", expect: ["expected object"] },
  { case: "json-null", folder: "json-null", field: "(root)", expect: ["expected object"] },
  { case: "definition-missing", folder: "definition-missing", field: "definition.json", expect: ["missing"] },
];

/** suites/<case>/: `jury eval <dir> --judges mock:judge --n 1`. */
export const suiteCases: FolderCase[] = [
  { case: "suite-json-missing", expect: ["suites/suite-json-missing", "no suite.json"] },
  { case: "suite-json-invalid", expect: ["suite-json-invalid/suite.json", "invalid JSON"] },
  { case: "suite-json-array", expect: ["suite-json-array/suite.json", "(root)", "expected object"] },
  { case: "suite-json-utf16", expect: ["suite-json-utf16/suite.json", "UTF-8"] },
  { case: "name-missing", expect: ["name-missing/suite.json", "name:"] },
  { case: "criteria-not-array", expect: ["criteria-not-array/suite.json", "criteria:", "expected array"] },
  { case: "criteria-empty", expect: ["criteria-empty/suite.json", "criteria:", "at least one criterion"] },
  {
    case: "criterion-unknown",
    expect: ["criterion-unknown/suite.json", "no_such_criterion", "no such criterion"],
  },
  {
    case: "threshold-is-string",
    expect: ["threshold-is-string/suite.json", "criteria.0.threshold", "expected number"],
  },
  {
    case: "threshold-outside-scale",
    expect: ["threshold-outside-scale/suite.json", "relevance", "11", "outside its scale"],
  },
  {
    case: "case-threshold-outside-scale",
    expect: ["case-threshold-outside-scale/cases/a.json", "relevance", "outside its scale"],
  },
  {
    case: "inline-cases-not-array",
    expect: ["inline-cases-not-array/suite.json", "cases:", "expected array"],
  },
  { case: "no-cases", expect: ["suites/no-cases", "no test cases"] },
  { case: "case-invalid-json", expect: ["case-invalid-json/cases/broken.json", "invalid JSON"] },
  { case: "case-wrong-types", expect: ["case-wrong-types/cases/bad.json", "id:", "name:", "input.prompt:"] },
  { case: "case-output-missing", expect: ["case-output-missing/cases/no-output.json", "output:"] },
  { case: "case-is-number", expect: ["case-is-number/cases/number.json", "(root)", "expected object"] },
  { case: "case-id-with-spaces", expect: ["case-id-with-spaces/cases/spaces.json", "id:"] },
  { case: "case-latin1-bytes", expect: ["case-latin1-bytes/cases/latin1.json", "UTF-8"] },
  { case: "duplicate-case-ids", expect: ['"same"', "first.json", "second.json"] },
  { case: "output-file-missing", expect: ['case "a"', "outputs/missing.txt", "cannot be read"] },
  // a shared suite cannot read files outside its folder (test/security/suite-files.test.ts: symlinks, FIFOs)
  {
    case: "output-file-parent",
    expect: ["output-file-parent/cases/a.json", 'case "a"', "/etc/passwd", "outside the folder"],
    exit: 2,
  },
  {
    case: "output-file-absolute",
    expect: ["output-file-absolute/cases/a.json", 'case "a"', "/etc/passwd", "outside the folder"],
    exit: 2,
  },
  { case: "output-http-bad-url", expect: ["output-http-bad-url/cases/a.json", "output.http.url"] },
];

/** memories/<case>/: `jury memory import <dir>`. */
export const memoryCases: FolderCase[] = [
  { case: "title-is-number", expect: ["title-is-number/a.json", "title:", "expected string"] },
  { case: "id-missing", expect: ["id-missing/a.json", "id:"] },
  { case: "id-blank", expect: ["id-blank/a.json", "id:"] },
  { case: "title-missing", expect: ["title-missing/a.json", "title:"] },
  { case: "category-missing", expect: ["category-missing/a.json", "category:"] },
  { case: "category-too-long", expect: ["category-too-long/a.json", "category:", "50"] },
  { case: "tags-not-array", expect: ["tags-not-array/a.json", "tags:", "expected array"] },
  { case: "created-at-not-a-date", expect: ["created-at-not-a-date/a.json", "created_at:"] },
  {
    case: "duplicate-ids-across-files",
    expect: ["duplicate-ids-across-files/b.json", 'id "dup"', "duplicate-ids-across-files/a.json"],
  },
  { case: "duplicate-ids-in-array", expect: ["duplicate-ids-in-array/a.json [1]", 'id "x"', "a.json [0]"] },
  { case: "array-with-bad-element", expect: ["array-with-bad-element/a.json [1]", "(root)"] },
  { case: "valid-then-invalid", expect: ["valid-then-invalid/b.json", "body:"] },
  { case: "invalid-json", expect: ["invalid-json/a.json", "invalid JSON"] },
  { case: "empty-file", expect: ["empty-file/a.json", "invalid JSON"] },
  { case: "json-number", expect: ["json-number/a.json", "(root)", "expected object"] },
  { case: "json-string", expect: ["json-string/a.json", "(root)", "expected object"] },
  { case: "json-null", expect: ["json-null/a.json", "(root)", "expected object"] },
  { case: "latin1-bytes", expect: ["latin1-bytes/a.json", "not valid UTF-8"] },
  { case: "utf16-bytes", expect: ["utf16-bytes/a.json", "not valid UTF-8"] },
  { case: "empty-folder", expect: ["memories/empty-folder", "no *.json memory files"] },
];

/** studies/<case>/: `jury memory import-study <dir>`. */
export const studyCases: FolderCase[] = [
  { case: "queries-missing", expect: ["queries-missing/queries.json", "no such file"] },
  { case: "memories-folder-missing", expect: ["memories-folder-missing/memories", "not a folder"] },
  { case: "queries-invalid-json", expect: ["queries-invalid-json/queries.json", "JSON"] },
  { case: "queries-not-array", expect: ["queries-not-array/queries.json", "(root)", "expected array"] },
  { case: "query-text-is-number", expect: ["query-text-is-number/queries.json", "0.text:"] },
  { case: "query-names-unknown-memory", expect: ["query-names-unknown-memory/queries.json", "q1", '"nope"'] },
  { case: "memory-invalid", expect: ["memory-invalid/memories/a.json", "title:"] },
];

/** beir/<case>/: `jury memory import-beir <dir>`. */
export const beirCases: FolderCase[] = [
  { case: "corpus-line-not-json", expect: ["corpus-line-not-json/corpus.jsonl:3", "invalid JSON"] },
  { case: "corpus-id-missing", expect: ["corpus-id-missing/corpus.jsonl:2", "_id:"] },
  { case: "corpus-id-null", expect: ["corpus-id-null/corpus.jsonl:1", "_id:"] },
  {
    case: "corpus-text-not-string",
    expect: ["corpus-text-not-string/corpus.jsonl:1", "text:", "expected string"],
  },
  { case: "corpus-title-not-string", expect: ["corpus-title-not-string/corpus.jsonl:2", "title:"] },
  {
    case: "corpus-line-is-array",
    expect: ["corpus-line-is-array/corpus.jsonl:1", "(root)", "expected object"],
  },
  { case: "corpus-latin1-bytes", expect: ["corpus-latin1-bytes/corpus.jsonl", "UTF-8"] },
  { case: "corpus-duplicate-id", expect: ["corpus-duplicate-id/corpus.jsonl:2", '"d1"'] },
  { case: "corpus-empty", expect: ["corpus-empty/corpus.jsonl"] },
  { case: "queries-line-not-json", expect: ["queries-line-not-json/queries.jsonl:2", "invalid JSON"] },
  { case: "query-text-missing", expect: ["query-text-missing/queries.jsonl:2", "text:"] },
  { case: "qrels-score-not-integer", expect: ["qrels-score-not-integer/qrels/test.tsv:3", "1.5"] },
  { case: "qrels-score-text", expect: ["qrels-score-text/qrels/test.tsv:2", "high"] },
  { case: "qrels-two-columns", expect: ["qrels-two-columns/qrels/test.tsv:2"] },
  { case: "qrels-unknown-document", expect: ["qrels-unknown-document/qrels/test.tsv:4", '"d99"'] },
  { case: "qrels-unknown-query", expect: ["qrels-unknown-query/qrels/test.tsv:3", '"q9"'] },
  { case: "corpus-missing", expect: ["beir/corpus-missing", "missing corpus.jsonl"] },
  { case: "queries-missing", expect: ["beir/queries-missing", "missing queries.jsonl"] },
  { case: "qrels-missing", expect: ["beir/qrels-missing", "missing qrels"] },
];

/** reviews/<case>/: `jury review --judges mock:judge --quick --passed 1 --failed 0 <args>`. */
export const reviewCases: ReviewCase[] = [
  {
    case: "criteria-file-empty",
    args: ["--criteria", "{dir}/criteria.md", "--diff", "{dir}/change.diff"],
    expect: ["criteria-file-empty/criteria.md", "empty"],
  },
  {
    case: "criteria-text-blank",
    args: ["--criteria", "   ", "--diff", "{dir}/change.diff"],
    expect: ["acceptance criteria are empty"],
  },
  {
    case: "criteria-file-missing",
    args: ["--criteria", "{dir}/criteria.md", "--diff", "{dir}/change.diff"],
    expect: ["criteria-file-missing/criteria.md"],
  },
  {
    case: "diff-file-missing",
    args: ["--criteria", "{dir}/criteria.md", "--diff", "{dir}/change.diff"],
    expect: ["diff-file-missing/change.diff", "cannot be read", "ENOENT"],
  },
  {
    case: "diff-is-a-folder",
    args: ["--criteria", "{dir}/criteria.md", "--diff", "{dir}/change.diff"],
    expect: ["diff-is-a-folder/change.diff", "is a folder, not a regular file"],
    exit: 2,
  },
  {
    case: "test-file-missing",
    args: ["--criteria", "{dir}/criteria.md", "--diff", "{dir}/change.diff", "--tests", "{dir}/slug.test.ts"],
    expect: ["test-file-missing/slug.test.ts", "ENOENT"],
  },
  {
    case: "test-output-missing",
    args: [
      "--criteria",
      "{dir}/criteria.md",
      "--diff",
      "{dir}/change.diff",
      "--test-output",
      "{dir}/test-output.txt",
    ],
    expect: ["test-output-missing/test-output.txt", "ENOENT"],
  },
  {
    case: "lint-output-missing",
    args: ["--criteria", "{dir}/criteria.md", "--diff", "{dir}/change.diff", "--lint", "{dir}/lint.txt"],
    expect: ["lint-output-missing/lint.txt", "ENOENT"],
  },
  {
    case: "passed-not-a-number",
    args: ["--criteria", "{dir}/criteria.md", "--diff", "{dir}/change.diff", "--passed", "twelve"],
    expect: ["--passed", '"twelve"'],
    exit: 2,
  },
];

/** hook/<case>: stdin of `jury memory retrieve`, which must exit 0 silently and log the problem. */
export const hookCases: HookCase[] = [
  { case: "not-json.txt", expect: ["stdin is not JSON"] },
  { case: "truncated.json", expect: ["stdin is not JSON"] },
  { case: "array.json", expect: ["unexpected hook input", "expected object, received array"] },
  { case: "json-string.json", expect: ["unexpected hook input", "expected object, received string"] },
  { case: "json-null.json", expect: ["unexpected hook input", "expected object, received null"] },
  { case: "prompt-is-number.json", expect: ["prompt:", "expected string, received number"] },
  { case: "user-prompt-is-array.json", expect: ["user_prompt:", "expected string, received array"] },
  {
    case: "transcript-path-is-object.json",
    expect: ["transcript_path:", "expected string, received object"],
  },
  { case: "session-id-is-number.json", expect: ["session_id:", "expected string, received number"] },
  { case: "cwd-is-boolean.json", expect: ["cwd:", "expected string, received boolean"] },
  { case: "empty.txt", expect: ["stdin is empty"] },
  { case: "invalid-utf8.json", expect: ["UTF-8"] },
  { case: "utf16.json", expect: ["UTF-8"] },
];
