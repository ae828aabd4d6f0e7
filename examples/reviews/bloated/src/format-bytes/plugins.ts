import type { FormatContext } from "./types";

export interface FormatterPlugin {
  readonly name: string;
  /** Runs after scaling and rounding, before the number is rendered; may adjust the context. */
  beforeRender?(context: FormatContext): void;
  /** Receives the rendered string and returns the string to use instead. */
  afterRender?(output: string, context: FormatContext): string;
}

export class PluginRegistry {
  private readonly plugins = new Map<string, FormatterPlugin>();

  register(plugin: FormatterPlugin): this {
    if (this.plugins.has(plugin.name)) {
      throw new Error(`A formatter plugin named "${plugin.name}" is already registered`);
    }
    this.plugins.set(plugin.name, plugin);
    return this;
  }

  list(): FormatterPlugin[] {
    return [...this.plugins.values()];
  }
}

/** Plugins registered here apply to every `formatBytes` call. */
export const globalPluginRegistry = new PluginRegistry();
