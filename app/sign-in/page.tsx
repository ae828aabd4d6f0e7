import { Card, PageTitle } from "@/components/ui/card";
import { safeNextPath } from "@/lib/auth/next-path";

const problems: Record<string, string> = {
  wrong: "That token does not sign anyone in: it was mistyped, rotated, or its user was removed.",
  empty: "Paste your token first.",
};

export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<{ next?: string; error?: string }>;
}) {
  const { next, error } = await searchParams;
  const problem = error ? problems[error] : undefined;
  return (
    <div className="mx-auto max-w-md space-y-4">
      <PageTitle>Sign in</PageTitle>
      <Card>
        <form method="post" action="/auth/sign-in" className="space-y-3">
          <input type="hidden" name="next" value={safeNextPath(next)} />
          <label htmlFor="token" className="block text-sm font-medium text-zinc-800">
            Your token
          </label>
          <input
            id="token"
            name="token"
            type="password"
            autoComplete="current-password"
            required
            // biome-ignore lint/a11y/noAutofocus: the page's one field
            autoFocus
            aria-describedby={problem ? "token-help token-problem" : "token-help"}
            aria-invalid={problem ? true : undefined}
            className="w-full rounded border border-zinc-300 px-3 py-2 font-mono text-sm"
          />
          <p id="token-help" className="text-sm text-zinc-600">
            An admin gives you a personal token with <code>jury users add &lt;name&gt;</code>; the
            server&apos;s JURY_ACCESS_TOKEN signs in as its admin. The token is kept in an HttpOnly cookie for
            30 days, never in the page.
          </p>
          {problem && (
            <p id="token-problem" role="alert" className="text-sm text-red-800">
              {problem}
            </p>
          )}
          <button
            type="submit"
            className="rounded bg-indigo-700 px-4 py-2 text-sm font-medium text-white hover:bg-indigo-800"
          >
            Sign in
          </button>
        </form>
      </Card>
    </div>
  );
}
