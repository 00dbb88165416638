// Typed access to a collector's options. The exporter hands collectors options already parsed and
// defaulted by their flags; tests that create a collector directly may pass only some. So each read
// names its fallback, and a duration may arrive parsed (ms) or as text.
import type { CollectorOptions } from './collector.js';
import { positiveDuration } from './flag-values.js';

// Function-valued properties, not methods: collectors destructure them (`const { num } = ...`).
export interface OptionReader {
  text: (name: string, fallback: string) => string;
  num: (name: string, fallback: number) => number;
  bool: (name: string, fallback: boolean) => boolean;
  /** Milliseconds. */
  duration: (name: string, fallback: string) => number;
}

export function optionReader(options: CollectorOptions): OptionReader {
  return {
    text: (name, fallback) => {
      const value = options[name];
      return typeof value === 'string' ? value : fallback;
    },
    num: (name, fallback) => {
      const value = options[name];
      return typeof value === 'number' ? value : fallback;
    },
    bool: (name, fallback) => {
      const value = options[name];
      return typeof value === 'boolean' ? value : fallback;
    },
    duration: (name, fallback) => {
      const value = options[name];
      return typeof value === 'number' ? value : positiveDuration(typeof value === 'string' ? value : fallback);
    },
  };
}
