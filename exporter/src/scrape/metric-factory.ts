// One collector's metric constructors, bound to its own registry: each family is declared in one
// line (name, help, label names), with nothing else to repeat. prom-client's options beyond these
// (collect hooks, buckets) are not used by the collectors: the scrape refills the values itself.
import { Counter, Gauge } from 'prom-client';
import { promRegisters, type MetricRegistry } from './metric-registry.js';

export interface MetricFactory {
  readonly counter: <L extends string = never>(name: string, help: string, labelNames?: readonly L[]) => Counter<L>;
  readonly gauge: <L extends string = never>(name: string, help: string, labelNames?: readonly L[]) => Gauge<L>;
}

export function metricsIn(registry: MetricRegistry): MetricFactory {
  const registers = promRegisters(registry);
  return {
    counter: <L extends string = never>(name: string, help: string, labelNames: readonly L[] = []) => new Counter<L>({ name, help, labelNames, registers }),
    gauge: <L extends string = never>(name: string, help: string, labelNames: readonly L[] = []) => new Gauge<L>({ name, help, labelNames, registers }),
  };
}
