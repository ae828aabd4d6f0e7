import type { ReactNode } from "react";
import { ScrollTable } from "@/components/ui/scroll-table";

/**
 * The little Markdown a criterion's README uses (headings, paragraphs, lists, pipe tables, code
 * fences, `code` and **bold**), rendered as React elements: no HTML from the file reaches the page.
 */
export function Markdown({ text }: { text: string }) {
  return <div className="space-y-3 text-sm leading-relaxed">{blocks(text)}</div>;
}

function inline(s: string): ReactNode[] {
  const out: ReactNode[] = [];
  const re = /`([^`]+)`|\*\*([^*]+)\*\*/g;
  let last = 0;
  for (const m of s.matchAll(re)) {
    if (m.index > last) out.push(s.slice(last, m.index));
    out.push(
      m[1] !== undefined ? (
        <code key={m.index} className="rounded bg-zinc-100 px-1 text-[0.85em]">
          {m[1]}
        </code>
      ) : (
        <strong key={m.index}>{m[2]}</strong>
      ),
    );
    last = m.index + m[0].length;
  }
  if (last < s.length) out.push(s.slice(last));
  return out;
}

const cells = (row: string) =>
  row
    .trim()
    .replace(/^\|/, "")
    .replace(/\|$/, "")
    .split("|")
    .map((c) => c.trim());

function blocks(text: string): ReactNode[] {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const out: ReactNode[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    const key = out.length;
    if (line.trim() === "") {
      i++;
    } else if (line.startsWith("```")) {
      const body: string[] = [];
      for (i++; i < lines.length && !lines[i].startsWith("```"); i++) body.push(lines[i]);
      i++;
      out.push(
        <pre key={key} className="overflow-x-auto rounded bg-zinc-50 p-2 text-xs">
          {body.join("\n")}
        </pre>,
      );
    } else if (/^#{1,6}\s/.test(line)) {
      const level = /^#+/.exec(line)?.[0].length ?? 1;
      const content = inline(line.replace(/^#+\s*/, ""));
      out.push(
        level <= 1 ? (
          <h2 key={key} className="text-base font-semibold">
            {content}
          </h2>
        ) : (
          <h3 key={key} className="pt-1 text-sm font-semibold">
            {content}
          </h3>
        ),
      );
      i++;
    } else if (line.trim().startsWith("|")) {
      const rows: string[][] = [];
      for (; i < lines.length && lines[i].trim().startsWith("|"); i++)
        if (!/^\|?[\s:|-]+\|?$/.test(lines[i].trim())) rows.push(cells(lines[i]));
      const [head, ...body] = rows;
      if (!head) continue;
      out.push(
        <ScrollTable key={key} label="Table from the README">
          <table className="text-left text-sm">
            <thead>
              <tr className="text-xs text-zinc-600">
                {head.map((c, j) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: columns are positional
                  <th key={j} scope="col" className="pb-1 font-medium">
                    {inline(c)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {body.map((r, j) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: rows are positional
                <tr key={j} className="border-t border-zinc-100 align-top">
                  {r.map((c, k) => (
                    // biome-ignore lint/suspicious/noArrayIndexKey: columns are positional
                    <td key={k} className="py-0.5">
                      {inline(c)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollTable>,
      );
    } else if (/^\s*[-*]\s/.test(line)) {
      const items: string[] = [];
      for (; i < lines.length && /^\s*[-*]\s/.test(lines[i]); i++)
        items.push(lines[i].replace(/^\s*[-*]\s/, ""));
      out.push(
        <ul key={key} className="list-disc space-y-0.5 pl-5">
          {items.map((it, j) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: items are positional
            <li key={j}>{inline(it)}</li>
          ))}
        </ul>,
      );
    } else {
      const para: string[] = [];
      for (
        ;
        i < lines.length && lines[i].trim() !== "" && !/^(#{1,6}\s|```|\s*[-*]\s|\s*\|)/.test(lines[i]);
        i++
      )
        para.push(lines[i].trim());
      out.push(<p key={key}>{inline(para.join(" "))}</p>);
    }
  }
  return out;
}
