import React from 'react';
import { type GroupTotals, type ReasonTotals, type Status, CLASSES, shares, total } from '../summary/rollup';
import { TestIds } from '../testids';

const MAX_REASONS = 4;

function seconds(v: number): string {
  return v >= 100 ? `${v.toFixed(0)} s` : v >= 1 ? `${v.toFixed(1)} s` : `${(v * 1000).toFixed(1)} ms`;
}

/** The reasons that cost the most I/O time (then calls), red before yellow on ties. */
export function topReasons(reasons: ReasonTotals[], n = MAX_REASONS): ReasonTotals[] {
  return [...reasons].sort((a, b) => b.seconds - a.seconds || b.calls - a.calls || a.cls.localeCompare(b.cls) || a.reason.localeCompare(b.reason)).slice(0, n);
}

/** Absolute figures behind one group's bars: I/O time and calls per class, with shares; top reasons. */
export function SummaryTooltip({ group, status, rule }: { group: GroupTotals; status: Status; rule: string }) {
  const ts = shares(group.seconds);
  const cs = shares(group.calls);
  const reasons = topReasons(group.reasons);
  return (
    <div data-testid={TestIds.summaryTooltip}>
      <div>
        <strong>{group.group}</strong> — {status} ({rule})
      </div>
      <table>
        <thead>
          <tr>
            <th />
            <th>I/O time</th>
            <th>calls</th>
          </tr>
        </thead>
        <tbody>
          {CLASSES.map((c) => (
            <tr key={c}>
              <td>{c}</td>
              <td>{`${seconds(group.seconds[c])} (${ts[c].toFixed(1)}%)`}</td>
              <td>{`${Math.round(group.calls[c]).toLocaleString('en')} (${cs[c].toFixed(1)}%)`}</td>
            </tr>
          ))}
          <tr>
            <td>total</td>
            <td>{seconds(total(group.seconds))}</td>
            <td>{Math.round(total(group.calls)).toLocaleString('en')}</td>
          </tr>
        </tbody>
      </table>
      {reasons.length > 0 && (
        <table data-testid={TestIds.summaryReasons}>
          <thead>
            <tr>
              <th>top reasons</th>
              <th>I/O time</th>
              <th>calls</th>
            </tr>
          </thead>
          <tbody>
            {reasons.map((r) => (
              <tr key={`${r.cls}/${r.reason}`} data-reason={r.reason} data-class={r.cls}>
                <td>{`${r.reason.replace(/_/g, ' ')} (${r.cls})`}</td>
                <td>{seconds(r.seconds)}</td>
                <td>{Math.round(r.calls).toLocaleString('en')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
