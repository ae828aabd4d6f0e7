/** Env vars whose values are secrets: provider keys and anything named like a key, token or secret. */
const SECRET_NAME = /(API_KEY|_KEY|TOKEN|SECRET|PASSWORD)$/i;

let cached: { env: NodeJS.ProcessEnv; values: string[] } | undefined;

function secretValues(env: NodeJS.ProcessEnv): string[] {
  if (cached?.env === env) return cached.values;
  const values = Object.entries(env)
    .filter(([k, v]) => SECRET_NAME.test(k) && typeof v === "string" && v.length >= 8)
    .map(([, v]) => v as string)
    .sort((a, b) => b.length - a.length);
  cached = { env, values };
  return values;
}

/**
 * Removes secret values from text that is about to be stored, logged or shown: a provider's error
 * message may echo the key it was sent.
 */
export function redactSecrets(text: string, env: NodeJS.ProcessEnv = process.env): string {
  let out = text;
  for (const v of secretValues(env)) if (out.includes(v)) out = out.split(v).join("[redacted]");
  return out;
}
