import type { ReactNode } from "react";

/**
 * A form field: its label above the control. `children` is the control and whatever goes under it
 * (a hint, the field's error).
 */
export function LabelledField({
  id,
  label,
  children,
}: {
  id: string;
  label: ReactNode;
  children: ReactNode;
}) {
  return (
    <div>
      <label htmlFor={id} className="block text-xs font-medium text-zinc-700">
        {label}
      </label>
      {children}
    </div>
  );
}
