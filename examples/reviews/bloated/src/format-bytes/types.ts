import type { FormatterPlugin } from "./plugins";
import type { RoundingStrategy } from "./rounding";
import type { UnitSystem } from "./unit-systems";

export type UnitSystemName = "binary" | "decimal";
export type RoundingMode = "half-up" | "floor";

export interface FormatBytesOptions {
  /** Digits after the decimal point (default 1). */
  decimals?: number;
  /** Unit system, by name or as an instance (default `"binary"`). */
  unitSystem?: UnitSystemName | UnitSystem;
  /** Rounding strategy, by name or as an instance (default `"half-up"`). */
  rounding?: RoundingMode | RoundingStrategy;
  /** Text between the number and the unit (default `" "`). */
  separator?: string;
  /** Plugins applied after those in the global registry. */
  plugins?: FormatterPlugin[];
}

export interface ResolvedFormatBytesOptions {
  readonly decimals: number;
  readonly unitSystem: UnitSystem;
  readonly rounding: RoundingStrategy;
  readonly separator: string;
  readonly plugins: readonly FormatterPlugin[];
}

export interface FormatContext {
  readonly bytes: number;
  value: number;
  unit: string;
  readonly options: ResolvedFormatBytesOptions;
}
