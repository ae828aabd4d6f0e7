import type { LanguageModelV3, LanguageModelV3CallOptions, LanguageModelV3Prompt } from "@ai-sdk/provider";

/**
 * The `mock` provider: NOT a model. It answers deterministically from a hash of the prompt so
 * a user can try a pipeline offline. When asked for JSON it fills the requested schema:
 * numbers inside the schema's bounds (or the prompt's "scale of A-B"), strings saying it is a mock.
 */
export function createMockModel(modelId: string): LanguageModelV3 {
  return {
    specificationVersion: "v3",
    provider: "mock",
    modelId,
    supportedUrls: {},
    async doGenerate(options: LanguageModelV3CallOptions) {
      const prompt = promptText(options.prompt);
      const text = mockAnswer(prompt, options.responseFormat);
      const inputTokens = Math.ceil(prompt.length / 4);
      const outputTokens = Math.ceil(text.length / 4);
      return {
        content: [{ type: "text", text }],
        finishReason: { unified: "stop", raw: "stop" },
        usage: {
          inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: outputTokens, text: outputTokens, reasoning: 0 },
        },
        warnings: [],
      };
    },
    async doStream() {
      throw new Error("The mock provider does not stream");
    },
  };
}

function promptText(prompt: LanguageModelV3Prompt): string {
  const parts: string[] = [];
  for (const m of prompt) {
    if (typeof m.content === "string") parts.push(m.content);
    else for (const c of m.content) if (c.type === "text") parts.push(c.text);
  }
  return parts.join("\n");
}

export function hashString(s: string): number {
  // FNV-1a, 32 bit: cheap and stable across runs.
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  enum?: unknown[];
};

function mockAnswer(prompt: string, format: LanguageModelV3CallOptions["responseFormat"]): string {
  const h = hashString(prompt);
  const scale = /scale of\s*(-?\d+(?:\.\d+)?)\s*(?:-|to|–)\s*(-?\d+(?:\.\d+)?)/i.exec(prompt);
  const bounds: [number, number] = scale ? [Number(scale[1]), Number(scale[2])] : [1, 10];
  if (format?.type === "json") {
    const schema = (format.schema as JsonSchema | undefined) ?? {
      type: "object",
      properties: { score: { type: "number" }, reasoning: { type: "string" } },
    };
    return JSON.stringify(fill(schema, h, bounds));
  }
  return `Mock answer ${h % 1000} (the mock provider is not a model).`;
}

function fill(schema: JsonSchema, h: number, bounds: [number, number]): unknown {
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (schema.enum?.length) return schema.enum[h % schema.enum.length];
  switch (type) {
    case "object": {
      const out: Record<string, unknown> = {};
      let i = 0;
      for (const [k, v] of Object.entries(schema.properties ?? {}))
        out[k] = fill(v, hashString(`${h}:${i++}:${k}`), bounds);
      return out;
    }
    case "array":
      return [];
    case "integer":
    case "number": {
      const lo = schema.minimum ?? bounds[0];
      const hi = schema.maximum ?? bounds[1];
      const steps = Math.max(1, Math.round(hi - lo));
      return lo + (h % (steps + 1)) * ((hi - lo) / steps);
    }
    case "boolean":
      return h % 2 === 0;
    default:
      return "Mock reasoning: the mock provider is not a model and did not read the input.";
  }
}
