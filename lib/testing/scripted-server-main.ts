// Starts the scripted OpenAI-compatible server as its own process (for e2e tests and benchmarks).
// Default script: a judge answering {score, reasoning} inside the prompt's scale, varying per call,
// and a memory judge keeping the first two candidates.
import { hashString } from "../providers/mock-model";
import { startScriptedServer } from "./scripted-server";

const port = Number(process.env.SCRIPTED_PORT ?? 0);
const latency = Number(process.env.SCRIPTED_LATENCY_MS ?? 0);

/** Prompts a "flaky…" model has been sent, by model and messages: the first call of each fails. */
const flakySeen = new Set<string>();

const server = await startScriptedServer(
  (req) => {
    // a model named "down…" stands for a provider that is failing: every call answers 500
    if (req.model.startsWith("down"))
      return { delayMs: latency, status: 500, message: "scripted outage: this model is down" };
    // a model named "flaky…" fails transiently: its first call per prompt answers text that is not
    // the JSON asked for (no HTTP error, so the call's own retries do not hide it: the sample fails),
    // every later call of that prompt answers; retrying the failed samples then succeeds
    if (req.model.startsWith("flaky")) {
      const key = `${req.model}\u0000${req.text}`;
      if (!flakySeen.has(key)) {
        flakySeen.add(key);
        return { delayMs: latency, text: "scripted flake: no answer this time, ask again" };
      }
    }
    // the memory judge asks for {"keep": [...]}: keep the first two candidates it was shown
    if (req.text.includes('{"keep"')) return { delayMs: latency, json: { keep: [0, 1] } };
    // the review judge: the gate, then the scored judgment
    if (req.text.includes("When in doubt, pass"))
      return {
        delayMs: latency,
        json: { verdict: "pass", reasoning: "Scripted gate: the diff implements the criteria." },
      };
    if (req.text.includes('"schema_version"')) {
      const h = hashString(`${req.text}#${req.index}`);
      const dim = (k: number) => Math.round((0.55 + ((h >>> (k * 4)) % 40) / 100) * 100) / 100;
      return {
        delayMs: latency,
        json: {
          schema_version: "1.0.0",
          verdict: "partial",
          score: 0.7,
          dimensions: {
            correctness: dim(0),
            scope_adherence: dim(1),
            code_quality: dim(2),
            completeness: dim(3),
          },
          issues: [
            {
              severity: "minor",
              description: `Scripted issue from call ${req.index}: no test for the empty string.`,
            },
          ],
          summary: `Scripted judgment ${req.index}: mostly correct, one gap.`,
          confidence: "medium",
        },
      };
    }
    const scale = /scale of\s*(-?\d+)\s*(?:-|to|–)\s*(-?\d+)/i.exec(req.text);
    const [lo, hi] = scale ? [Number(scale[1]), Number(scale[2])] : [1, 10];
    const h = hashString(`${req.text}#${req.index}`);
    const score = lo + (h % (hi - lo + 1));
    return {
      delayMs: latency,
      json: { score, reasoning: `Scripted judge: call ${req.index} gives ${score} of ${hi}.` },
    };
  },
  { port },
);
process.stdout.write(`${JSON.stringify({ url: server.url, baseURL: server.baseURL, port: server.port })}\n`);
for (const sig of ["SIGINT", "SIGTERM"] as const)
  process.on(sig, () => server.close().then(() => process.exit(0)));
