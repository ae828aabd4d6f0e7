#!/usr/bin/env node
// Generates examples/beir-synthetic: a small BEIR-format collection (corpus.jsonl, queries.jsonl,
// qrels/test.tsv, qrels/train.tsv) for measuring Jury's BM25 with trec_eval's figures. Everything is
// drawn from a seeded PRNG, so `node examples/beir-synthetic/generate.mjs [outDir]` always writes the
// same bytes (examples/beir-synthetic/beir-synthetic.test.ts checks the shipped files against it).
//
// 25 topics × 60 documents = 1,500 documents. A document uses 1 to 3 of its topic's six terms, 8 to 14
// filler words, often one or two generic words (error, config, …: 80 %) and often one or two terms
// of another topic (45 %: near misses that share a query's words).
// 40 % have a title; the others have none (BEIR's title-less documents). Per topic, two test queries
// (two topic terms and a generic word) and one train query. Ground truth lists only relevant
// documents, as BEIR does: every document of the query's topic, grade 2 when it contains one of the
// query's topic terms, 1 when it does not (relevant, but BM25 can only find it through a generic word).
import fs from "node:fs";
import path from "node:path";

const TOPICS = {
  payments: ["stripe", "refund", "chargeback", "payout", "invoice", "ledger"],
  auth: ["oauth", "token", "session", "password", "saml", "mfa"],
  search: ["index", "tokenizer", "ranking", "synonym", "stemming", "facet"],
  caching: ["redis", "eviction", "ttl", "memcached", "stampede", "warmup"],
  queues: ["kafka", "consumer", "offset", "partition", "backpressure", "deadletter"],
  deploy: ["kubernetes", "helm", "rollout", "canary", "manifest", "ingress"],
  database: ["postgres", "vacuum", "replica", "deadlock", "migration", "sharding"],
  frontend: ["react", "hydration", "bundle", "component", "stylesheet", "router"],
  logging: ["logfmt", "loki", "retention", "sampling", "structured", "verbosity"],
  email: ["smtp", "bounce", "dkim", "template", "unsubscribe", "mailgun"],
  billing: ["subscription", "proration", "coupon", "dunning", "trial", "metered"],
  storage: ["bucket", "multipart", "lifecycle", "presigned", "glacier", "checksum"],
  testing: ["fixture", "snapshot", "flaky", "mock", "coverage", "playwright"],
  security: ["csrf", "xss", "sanitizer", "csp", "secrets", "vulnerability"],
  networking: ["dns", "tls", "latency", "proxy", "websocket", "keepalive"],
  mobile: ["android", "ios", "push", "offline", "appstore", "deeplink"],
  analytics: ["funnel", "cohort", "dashboard", "tracking", "attribution", "pageview"],
  i18n: ["locale", "translation", "plural", "timezone", "currency", "rtl"],
  ci: ["pipeline", "runner", "artifact", "workflow", "matrix", "lint"],
  observability: ["tracing", "span", "prometheus", "alerting", "slo", "histogram"],
  search_ui: ["autocomplete", "typeahead", "highlight", "pagination", "filters", "suggestions"],
  ml: ["embedding", "inference", "training", "feature", "drift", "gpu"],
  docs: ["readme", "changelog", "docstring", "tutorial", "diagram", "glossary"],
  compliance: ["gdpr", "audit", "consent", "pii", "soc2", "anonymize"],
  scheduling: ["cron", "scheduler", "recurrence", "backfill", "calendar", "reminder"],
};
const GENERIC = [
  "error",
  "config",
  "slow",
  "broken",
  "update",
  "issue",
  "setup",
  "failure",
  "timeout",
  "limit",
];
const FILLER = (
  "team service module handler request response client server user data value field record " +
  "file path version release branch commit review change note plan step task owner week month " +
  "morning night weekend report meeting ticket customer support product feature flag rule check " +
  "input output result status state event message queue job worker process thread memory disk " +
  "network region cluster node host port call method function class object type schema model " +
  "table column row key list map set array string number date time zone start end first last " +
  "next previous old new small large fast quick simple clean safe stable current default manual"
).split(" ");
const PREFIXES = ["how do I", "why is", "fix the", "we need to", "what about", "help with"];

function mulberry32(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
const rand = mulberry32(20_260_220);
const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
const pick = (xs) => xs[Math.floor(rand() * xs.length)];
function sample(xs, k) {
  const copy = [...xs];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [copy[i], copy[j]] = [copy[j], copy[i]];
  }
  return copy.slice(0, k);
}
function shuffle(xs) {
  return sample(xs, xs.length);
}

export function generate() {
  const names = Object.keys(TOPICS);
  const docs = [];
  for (const [t, topic] of names.entries()) {
    for (let i = 0; i < 60; i++) {
      const terms = sample(TOPICS[topic], int(1, 3));
      const words = [...terms, ...sample(FILLER, int(8, 14))];
      if (rand() < 0.8) words.push(...sample(GENERIC, int(1, 2)));
      if (rand() < 0.45)
        words.push(...sample(TOPICS[names[(t + int(1, names.length - 1)) % names.length]], int(1, 2)));
      const id = `${topic}-${String(i).padStart(2, "0")}`;
      const title = rand() < 0.4 ? `${terms.join(" ")} notes` : "";
      docs.push({ _id: id, topic, title, text: shuffle(words).join(" "), terms: new Set(words) });
    }
  }
  const queries = [];
  const test = [];
  const train = [];
  for (const topic of names) {
    for (let k = 0; k < 3; k++) {
      const terms = sample(TOPICS[topic], 2);
      const id = `${topic}-q${k}`;
      queries.push({ _id: id, text: `${pick(PREFIXES)} ${terms.join(" ")} ${pick(GENERIC)}` });
      const rows = docs
        .filter((d) => d.topic === topic)
        .map((d) => [id, d._id, terms.some((w) => d.terms.has(w)) ? 2 : 1]);
      (k < 2 ? test : train).push(...rows);
    }
  }
  const tsv = (rows) => `query-id\tcorpus-id\tscore\n${rows.map((r) => r.join("\t")).join("\n")}\n`;
  return {
    "corpus.jsonl": `${docs.map((d) => JSON.stringify(d.title ? { _id: d._id, title: d.title, text: d.text } : { _id: d._id, text: d.text })).join("\n")}\n`,
    "queries.jsonl": `${queries.map((q) => JSON.stringify(q)).join("\n")}\n`,
    "qrels/test.tsv": tsv(test),
    "qrels/train.tsv": tsv(train),
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const out = process.argv[2] ?? import.meta.dirname;
  for (const [name, text] of Object.entries(generate())) {
    fs.mkdirSync(path.dirname(path.join(out, name)), { recursive: true });
    fs.writeFileSync(path.join(out, name), text);
  }
  process.stdout.write(`wrote ${Object.keys(generate()).join(", ")} to ${out}\n`);
}
