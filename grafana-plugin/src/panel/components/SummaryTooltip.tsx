import React from 'react';
import { type GroupTotals, type Status, CLASSES, shares, total } from '../summary/rollup';
import { TestIds } from '../testids';

function seconds(v: number): string {
  return v >= 100 ? `${v.toFixed(0)} s` : v >= 1 ? `${v.toFixed(1)} s` : `${(v * 1000).toFixed(1)} ms`;
}

/** Absolute figures behind one group's bars: I/O time and calls per class, with shares. */
export function SummaryTooltip({ group, status, rule }: { group: GroupTotals; status: Status; rule: string }) {
  const ts = shares(group.seconds);
  const cs = shares(group.calls);
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
    </div>
  );
}
