// Families of the Lustre server collectors over the target views their last refill kept: nothing is
// copied into metric objects; the samples are read from the views when the scrape renders them
// (lustre/series-samples.ts: a view's samples stay as the refill saw them until the next update).
// Series come out in the order the refill walks them (target by target, series by series, field by
// field), which is the order prom-client's reset-and-refilled metrics wrote them in.
import type { ExportField, FieldKind } from '../lustre/export-fields.js';
import type { LustreWriter, SampledTarget, ViewOf } from '../lustre/refill.js';
import { escapeLabelValue, renderLabels, type Labels, type MetricFamily, type MetricType } from '../scrape/metric-family.js';
import type { SourceFigures, SourceMetrics } from './lustre_targets_metrics.js';

type Emit = (labels: Labels, value: number) => void;

/** A family with samples of each target as a whole (counts, reasons, caps), handed out by `samples`. */
export function perTargetFamily<V>(name: string, help: string, type: MetricType, views: () => readonly V[], samples: (view: V, emit: Emit) => void): MetricFamily {
  return {
    name,
    help,
    type,
    collect(sink): void {
      const emit: Emit = (labels, value) => sink.sample(labels, value);
      for (const view of views()) samples(view, emit);
    },
  };
}

/**
 * What is rendered once per target name and kept while the target is shown; forgotten all at once
 * when the names kept are many more than those shown (targets gone), so it stays bounded.
 */
class ShownTargets<T> {
  private readonly items = new Map<string, T>();

  of(name: string, make: (name: string) => T): T {
    let item = this.items.get(name);
    if (item === undefined) this.items.set(name, (item = make(name)));
    return item;
  }

  /** `shown`: the targets shown now. */
  forgetGone(shown: number): void {
    if (this.items.size > 2 * shown + 64) this.items.clear();
  }
}

const targetLabelText = (name: string): string => `target="${escapeLabelValue(name)}"`;

/**
 * The `target="<name>"` label text of each target, rendered once while the target is shown: the
 * families of 1,000 targets asked for it about 25 times a target every scrape.
 */
export class TargetLabelTexts {
  private readonly texts = new ShownTargets<string>();
  private readonly bytes = new ShownTargets<Uint8Array>();

  of(name: string): string {
    return this.texts.of(name, targetLabelText);
  }

  /** The same text as UTF-8, for families that write their samples as bytes (SampleSink.renderedBytes). */
  bytesOf(name: string): Uint8Array {
    return this.bytes.of(name, (n) => Buffer.from(this.of(n), 'utf8'));
  }

  /** Forgets the targets no longer shown, once they are many (`shown`: the targets shown now). */
  forgetGone(shown: number): void {
    this.texts.forgetGone(shown);
    this.bytes.forgetGone(shown);
  }
}

/**
 * A family with the same samples for every target: `target`, then the labels of one of `tails` (in
 * that order); `value` gives each one's value, undefined for none. The label text of a target's samples
 * is rendered at the first scrape that shows it and kept while it is shown, so an unchanged target
 * costs its values only.
 */
export function targetTailsFamily<V extends { readonly name: string }>(
  name: string,
  help: string,
  type: MetricType,
  views: () => readonly V[],
  targets: TargetLabelTexts,
  tails: readonly Labels[],
  value: (view: V, tail: number) => number | undefined,
): MetricFamily {
  const tailTexts = tails.map((labels) => {
    const text = renderLabels(labels);
    return text === '' ? '' : `,${text}`;
  });
  const texts = new ShownTargets<readonly string[]>();
  const labelsOf = (name: string): readonly string[] => {
    const target = targets.of(name);
    return tailTexts.map((tail) => target + tail);
  };
  return {
    name,
    help,
    type,
    collect(sink): void {
      const shown = views();
      texts.forgetGone(shown.length);
      for (const view of shown) {
        const labels = texts.of(view.name, labelsOf);
        for (let tail = 0; tail < labels.length; tail += 1) {
          const v = value(view, tail);
          if (v !== undefined) sink.rendered(labels[tail] as string, v);
        }
      }
    },
  };
}

/** What names a series in a view's samples. */
type SeriesOfView<V> = V extends SampledTarget<infer S> ? S : never;

/** A counter family of the targets' series samples of one field kind, labelled by `labels`. */
export function fieldFamily<V extends SampledTarget<unknown>>(
  name: string,
  help: string,
  kind: FieldKind,
  views: () => readonly V[],
  labels: (view: V, series: SeriesOfView<V>, field: ExportField) => Labels,
): MetricFamily {
  return {
    name,
    help,
    type: 'counter',
    collect(sink): void {
      for (const view of views()) view.samples.forEach((series, field, value) => sink.sample(labels(view, series as SeriesOfView<V>, field), value), kind);
    },
  };
}

/**
 * The writer whose views these families read: the refill clears it, hands it the settled source as a
 * whole (its label-less metrics) and then each target's view, kept for the scrape to render until the
 * next refill.
 */
export class TargetViewsWriter<A extends SourceFigures> implements LustreWriter<A> {
  private views: ViewOf<A>[] = [];
  /** The views of the last refill, as the families read them. */
  protected readonly shown = (): readonly ViewOf<A>[] => this.views;

  constructor(private readonly source: SourceMetrics) {}

  clear(): void {
    this.views = [];
    this.source.clear();
  }

  whole(source: A): void {
    this.source.set(source);
  }

  target(t: ViewOf<A>): void {
    this.views.push(t);
  }
}
