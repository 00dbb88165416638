// A collector's families (metric-family.ts), in the order they are written.
import { CONTENT_TYPES, renderToString } from './exposition-writer.js';
import type { MetricFamily } from './metric-family.js';

export class MetricRegistry {
  private readonly families = new Map<string, MetricFamily>();
  readonly contentType = CONTENT_TYPES.text;

  /** Adds a family; a second family of the same name is a programming error. */
  register<F extends MetricFamily>(family: F): F {
    const existing = this.families.get(family.name);
    if (existing !== undefined && existing !== family) throw new Error(`A metric with the name ${family.name} has already been registered.`);
    this.families.set(family.name, family);
    return family;
  }

  /** Removes every family (a collector that builds its metrics anew). */
  clear(): void {
    this.families.clear();
  }

  removeSingleMetric(name: string): void {
    this.families.delete(name);
  }

  /** The families in registration order. */
  list(): readonly MetricFamily[] {
    return [...this.families.values()];
  }

  /** The whole text of this registry alone (tests read it; the scrape streams instead). */
  metrics(): Promise<string> {
    return renderToString([this.list()]);
  }
}
