"use client";

import { useState } from "react";
import type { Settings } from "@/lib/settings/schema";
import { FieldError } from "./fields";

type Props = {
  value: Settings;
  set: (path: string, v: unknown) => void;
  err: (path: string) => string | undefined;
};

type Row = { model: string; inputPerMTok: number; outputPerMTok: number };

/** Prices are edited as rows and written back as a record keyed by `provider:model`. */
export function PriceSection({ value, set, err }: Props) {
  const [rows, setRows] = useState<Row[]>(() =>
    Object.entries(value.prices).map(([model, p]) => ({ model, ...p })),
  );
  const commit = (next: Row[]) => {
    setRows(next);
    set(
      "prices",
      Object.fromEntries(
        next.map((r) => [r.model, { inputPerMTok: r.inputPerMTok, outputPerMTok: r.outputPerMTok }]),
      ),
    );
  };
  const cell = "w-full rounded border border-zinc-300 px-2 py-1 text-sm";
  return (
    <fieldset>
      <legend className="mb-2 text-sm font-semibold">
        Prices for cost estimates (USD per million tokens)
      </legend>
      <table className="w-full text-sm">
        <thead>
          <tr className="text-left text-xs text-zinc-500">
            <th className="font-medium">Judge (provider:model)</th>
            <th className="font-medium">Input</th>
            <th className="font-medium">Output</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity but their place
            <tr key={i}>
              <td className="pr-2">
                <input
                  aria-label="Judge"
                  className={cell}
                  value={r.model}
                  onChange={(e) =>
                    commit(rows.map((x, j) => (j === i ? { ...x, model: e.currentTarget.value } : x)))
                  }
                />
                <FieldError id={`prices.${r.model}`} error={err(`prices.${r.model}`)} />
              </td>
              <td className="pr-2">
                <input
                  aria-label="Input price"
                  type="number"
                  step="any"
                  className={cell}
                  value={r.inputPerMTok}
                  onChange={(e) =>
                    commit(
                      rows.map((x, j) =>
                        j === i ? { ...x, inputPerMTok: Number(e.currentTarget.value) } : x,
                      ),
                    )
                  }
                />
                <FieldError
                  id={`prices.${r.model}.inputPerMTok`}
                  error={err(`prices.${r.model}.inputPerMTok`)}
                />
              </td>
              <td className="pr-2">
                <input
                  aria-label="Output price"
                  type="number"
                  step="any"
                  className={cell}
                  value={r.outputPerMTok}
                  onChange={(e) =>
                    commit(
                      rows.map((x, j) =>
                        j === i ? { ...x, outputPerMTok: Number(e.currentTarget.value) } : x,
                      ),
                    )
                  }
                />
                <FieldError
                  id={`prices.${r.model}.outputPerMTok`}
                  error={err(`prices.${r.model}.outputPerMTok`)}
                />
              </td>
              <td>
                <button
                  type="button"
                  className="px-2 text-zinc-500 hover:text-red-700"
                  aria-label={`Remove price for ${r.model}`}
                  onClick={() => commit(rows.filter((_, j) => j !== i))}
                >
                  ×
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <button
        type="button"
        className="mt-2 text-xs text-indigo-700 hover:underline"
        onClick={() => commit([...rows, { model: "", inputPerMTok: 0, outputPerMTok: 0 }])}
      >
        + add price
      </button>
    </fieldset>
  );
}
