import type { SummarySort } from '../types';
import { type GroupTotals, type RollupRules, shares, total } from './rollup';

/**
 * Orders groups: most red share first (on the roll-up basis), largest total first, largest volume
 * first, by user, or by name.
 */
export function orderGroups(groups: GroupTotals[], sortBy: SummarySort, basis: RollupRules['basis']): GroupTotals[] {
  const pick = (g: GroupTotals) => (basis === 'calls' ? g.calls : g.seconds);
  const byName = (a: GroupTotals, b: GroupTotals) => a.group.localeCompare(b.group, undefined, { numeric: true });
  const sorted = [...groups];
  switch (sortBy) {
    case 'red':
      return sorted.sort((a, b) => shares(pick(b)).red - shares(pick(a)).red || total(pick(b)) - total(pick(a)) || byName(a, b));
    case 'total':
      return sorted.sort((a, b) => total(pick(b)) - total(pick(a)) || byName(a, b));
    case 'volume':
      return sorted.sort((a, b) => (b.bytes ?? -1) - (a.bytes ?? -1) || byName(a, b));
    case 'user':
      return sorted.sort((a, b) => (a.users[0] ?? '\uffff').localeCompare(b.users[0] ?? '\uffff') || byName(a, b)); // no user last
    default:
      return sorted.sort(byName);
  }
}
