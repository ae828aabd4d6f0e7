/**
 * The environment variables whose values are secrets: the one list that redaction, the key
 * allow-list of custom endpoints and the Settings page read. Names only; values stay in the
 * environment. Kept free of imports: the memory hook's small bundle loads it.
 */

type Env = Record<string, string | undefined>;

/** The key each built-in provider reads, and the only place its value is sent (its SDK's default URL). */
export const PROVIDER_KEY_ENV = {
  openai: "OPENAI_API_KEY",
  anthropic: "ANTHROPIC_API_KEY",
  google: "GOOGLE_GENERATIVE_AI_API_KEY",
} as const;

export const LOCAL_BASE_URL_ENV = "JURY_LOCAL_BASE_URL";
export const LOCAL_API_KEY_ENV = "JURY_LOCAL_API_KEY";
/** The dashboard's access token. */
export const ACCESS_TOKEN_ENV = "JURY_ACCESS_TOKEN";

/** The PostgreSQL store's URL, and the tests' (a URL can carry a password). */
export const DATABASE_URL_ENV = "JURY_DATABASE_URL";
export const TEST_DATABASE_URL_ENV = "JURY_TEST_DATABASE_URL";

/** Secrets by name, whatever their value looks like. */
export const NAMED_SECRET_ENV: readonly string[] = [
  ...Object.values(PROVIDER_KEY_ENV),
  LOCAL_API_KEY_ENV,
  ACCESS_TOKEN_ENV,
  DATABASE_URL_ENV,
  TEST_DATABASE_URL_ENV,
];

/** Who owns each named secret, for error messages. */
const OWNER: Record<string, string> = {
  OPENAI_API_KEY: "the openai provider's key",
  ANTHROPIC_API_KEY: "the anthropic provider's key",
  GOOGLE_GENERATIVE_AI_API_KEY: "the google provider's key",
  JURY_LOCAL_API_KEY: "the local provider's key",
  JURY_ACCESS_TOKEN: "the dashboard's access token",
  JURY_DATABASE_URL: "the PostgreSQL store's URL",
  JURY_TEST_DATABASE_URL: "the tests' PostgreSQL URL",
};

/** `JURY_<NAME>_API_KEY`: every custom endpoint's key, and the local provider's. */
export const ENDPOINT_KEY_PATTERN = /^JURY_[A-Z0-9_]+_API_KEY$/;

/** The existing heuristic: anything named like a key, token, secret or password. */
const SECRET_LIKE = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD)$/i;

/**
 * The only variable a custom endpoint may take its key from: `JURY_<NAME>_API_KEY`, NAME being the
 * endpoint's name uppercased with dashes as underscores (`open-router` → `JURY_OPEN_ROUTER_API_KEY`).
 */
export function endpointKeyEnv(endpointName: string): string {
  return `JURY_${endpointName.trim().toUpperCase().replace(/-/g, "_")}_API_KEY`;
}

/** What a variable is, when it is a known secret (`"the openai provider's key"`). */
export function secretOwner(name: string): string | undefined {
  return OWNER[name];
}

/** Names a key was actually read from at run time (see markSecretEnv). */
const marked = new Set<string>();

/** Records that a variable's value is sent as a credential, so redaction covers it whatever its name. */
export function markSecretEnv(name: string): void {
  marked.add(name);
}

/** Changes when a variable is marked, so a cache of secret values knows to refresh. */
export function markedSecretCount(): number {
  return marked.size;
}

export function isSecretEnvName(name: string): boolean {
  return (
    NAMED_SECRET_ENV.includes(name) ||
    ENDPOINT_KEY_PATTERN.test(name) ||
    SECRET_LIKE.test(name) ||
    marked.has(name)
  );
}

/** Which `JURY_*_API_KEY` variables are set, so the Settings page can say so for any endpoint name. */
export function presentEndpointKeys(env: Env = process.env): string[] {
  return Object.keys(env)
    .filter((k) => ENDPOINT_KEY_PATTERN.test(k) && Boolean(env[k]))
    .sort();
}
