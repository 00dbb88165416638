// A collector's families, in the order they are written. Families of the one model (metric-family.ts)
// register here; so can prom-client metrics (the process collector's default metrics, the web server's
// event counters), which prom-client's constructors register through `registerMetric()`: they are
// read through their public `get()` when the scrape renders them.
import { Counter, Histogram, Summary, type Gauge, type Registry } from 'prom-client';
import { CONTENT_TYPES, renderToString } from './exposition-writer.js';
import { renderLabels, type Labels, type MetricFamily, type MetricType, type SampleSink } from './metric-family.js';

/** What prom-client's metrics show of themselves (its Counter, Gauge, Histogram, Summary). */
interface PromMetric {
  readonly name: string;
  readonly help: string;
  get(): Promise<{ values?: readonly PromValue[] }>;
}

interface PromValue {
  readonly value: number;
  readonly labels?: Labels;
  readonly metricName?: string;
  readonly sharedLabels?: Labels;
}

/** A prom-client metric as a family: its values as prom-client's text rendering would list them. */
class PromMetricFamily implements MetricFamily {
  readonly type: MetricType;

  constructor(readonly metric: PromMetric) {
    // prom-client names the type only in what get() returns; the class says it before.
    this.type = metric instanceof Counter ? 'counter' : metric instanceof Histogram ? 'histogram' : metric instanceof Summary ? 'summary' : 'gauge';
  }

  get name(): string {
    return this.metric.name;
  }

  get help(): string {
    return this.metric.help;
  }

  async collect(sink: SampleSink): Promise<void> {
    const { values = [] } = await this.metric.get();
    for (const v of values) {
      const suffix = v.metricName === undefined ? '' : v.metricName.slice(this.metric.name.length);
      const shared = v.sharedLabels ?? {};
      if (Object.keys(shared).length === 0) {
        sink.sample(v.labels ?? {}, v.value, suffix);
        continue;
      }
      const own: Record<string, string | number> = {};
      for (const [k, value] of Object.entries(v.labels ?? {})) if (!Object.hasOwn(shared, k)) own[k] = value;
      const text = [renderLabels(own), renderLabels(shared)].filter((t) => t !== '').join(',');
      sink.rendered(text, v.value, suffix);
    }
  }
}

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

  /** prom-client's registration call (its metric constructors make it with `registers: [registry]`). */
  registerMetric(promMetric: Counter | Gauge | Histogram | Summary): void {
    const metric = promMetric as unknown as PromMetric;
    const existing = this.families.get(metric.name);
    if (existing instanceof PromMetricFamily && existing.metric === metric) return;
    this.register(new PromMetricFamily(metric));
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

/** The registry as prom-client's constructors take it (`registers: promRegisters(registry)`). */
export function promRegisters(registry: MetricRegistry | Registry): Registry[] {
  // prom-client's metrics call only registerMetric() (and read contentType) on their registers.
  return [registry as Registry];
}
