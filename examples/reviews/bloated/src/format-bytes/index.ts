import { ByteFormatter } from "./formatter";
import type { FormatBytesOptions } from "./types";

export { ByteFormatter } from "./formatter";
export { type FormatterPlugin, globalPluginRegistry, PluginRegistry } from "./plugins";
export { FloorRoundingStrategy, HalfUpRoundingStrategy, type RoundingStrategy } from "./rounding";
export type { FormatBytesOptions, FormatContext, RoundingMode, UnitSystemName } from "./types";
export { BinaryUnitSystem, DecimalUnitSystem, UnitSystem } from "./unit-systems";

/**
 * Formats a byte count for display: `formatBytes(1536)` → `"1.5 KB"`.
 *
 * Uses 1024-based units by default. Pass `options` to choose another unit system, rounding
 * strategy or separator, or to add plugins for this call.
 */
export function formatBytes(
  bytes: number,
  decimals = 1,
  options: Omit<FormatBytesOptions, "decimals"> = {},
): string {
  return new ByteFormatter({ ...options, decimals }).format(bytes);
}
