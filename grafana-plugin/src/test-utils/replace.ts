// A small stand-in for Grafana's TemplateSrv.replace: `$name` and `${name}` expand through the
// caller's formatter, with a variable's value(s) as given.
import type { ReplaceFn } from '../datasource/promql/interpolate';

export function makeReplace(vars: Record<string, string | string[]>): ReplaceFn {
  return (target, format) =>
    target.replace(/\$\{(\w+)\}|\$(\w+)/g, (whole, braced: string | undefined, bare: string | undefined) => {
      const name = braced ?? bare ?? '';
      return name in vars ? format(vars[name] as string | string[]) : whole;
    });
}

/** The same as an object with Grafana's TemplateSrv.replace signature, for setTemplateSrv. */
export function makeTemplateSrv(vars: Record<string, string | string[]>) {
  const replace = makeReplace(vars);
  return {
    replace: (target?: string, _scoped?: unknown, format?: unknown) =>
      replace(target ?? '', typeof format === 'function' ? (format as (v: string | string[]) => string) : (v) => (Array.isArray(v) ? v.join(',') : v)),
    getVariables: () => [],
    containsTemplate: (t?: string) => Boolean(t && t.includes('$')),
    updateTimeRange: () => {},
  };
}
