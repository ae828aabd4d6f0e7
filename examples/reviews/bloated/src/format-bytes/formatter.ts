import { globalPluginRegistry, type PluginRegistry } from "./plugins";
import { resolveRoundingStrategy } from "./rounding";
import type { FormatBytesOptions, FormatContext, ResolvedFormatBytesOptions } from "./types";
import { resolveUnitSystem } from "./unit-systems";

const DEFAULT_OPTIONS = {
  decimals: 1,
  unitSystem: "binary",
  rounding: "half-up",
  separator: " ",
} as const;

export class ByteFormatter {
  private readonly options: ResolvedFormatBytesOptions;
  private readonly registry: PluginRegistry;

  constructor(options: FormatBytesOptions = {}, registry: PluginRegistry = globalPluginRegistry) {
    this.options = ByteFormatter.resolveOptions(options);
    this.registry = registry;
  }

  format(bytes: number): string {
    this.validate(bytes);
    const { value, unit } = this.options.unitSystem.scale(bytes);
    const context: FormatContext = {
      bytes,
      value: this.options.rounding.round(value, this.options.decimals),
      unit,
      options: this.options,
    };
    const plugins = [...this.registry.list(), ...this.options.plugins];
    for (const plugin of plugins) plugin.beforeRender?.(context);
    let output = `${context.value}${this.options.separator}${context.unit}`;
    for (const plugin of plugins) output = plugin.afterRender?.(output, context) ?? output;
    return output;
  }

  private validate(bytes: number): void {
    if (Number.isNaN(bytes)) throw new RangeError(`bytes must be a number, got ${bytes}`);
    if (!Number.isFinite(bytes)) throw new RangeError(`bytes must be finite, got ${bytes}`);
    if (bytes < 0) throw new RangeError(`bytes must not be negative, got ${bytes}`);
  }

  private static resolveOptions(options: FormatBytesOptions): ResolvedFormatBytesOptions {
    const decimals = options.decimals ?? DEFAULT_OPTIONS.decimals;
    if (!Number.isInteger(decimals) || decimals < 0 || decimals > 20) {
      throw new RangeError(`decimals must be an integer from 0 to 20, got ${decimals}`);
    }
    return {
      decimals,
      unitSystem: resolveUnitSystem(options.unitSystem ?? DEFAULT_OPTIONS.unitSystem),
      rounding: resolveRoundingStrategy(options.rounding ?? DEFAULT_OPTIONS.rounding),
      separator: options.separator ?? DEFAULT_OPTIONS.separator,
      plugins: options.plugins ?? [],
    };
  }
}
