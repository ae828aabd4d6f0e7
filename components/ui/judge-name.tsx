import { Fragment } from "react";

/**
 * A judge's id (`provider:model`) that wraps only where its parts meet (after `:`, `/`, `-`, `.`),
 * never a character per line: a narrow column breaks `openai:gpt-5-mini` into `openai:` and
 * `gpt-5-mini`, not into letters. A part longer than the column may still break inside itself.
 */
export function JudgeName({ judge, className = "" }: { judge: string; className?: string }) {
  const parts = judge.split(/(?<=[:/])/);
  return (
    <code className={`text-xs [overflow-wrap:break-word] ${className}`} data-testid="judge-name">
      {parts.map((p, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one id, in order
        <Fragment key={i}>
          {i > 0 && <wbr />}
          {p}
        </Fragment>
      ))}
    </code>
  );
}
