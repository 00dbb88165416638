import type { PromQueryData, PromResponse, Series } from './types';

/** Prometheus sample value strings ("1.5", "NaN", "+Inf", "-Inf") to numbers. */
export function parseSampleValue(text: string): number {
  switch (text) {
    case '+Inf':
      return Infinity;
    case '-Inf':
      return -Infinity;
    case 'NaN':
      return NaN;
    default:
      return Number(text);
  }
}

/** Unwraps an API envelope; throws with Prometheus's own error text when status is not success. */
export function unwrap<T>(response: PromResponse<T>): T {
  if (response.status !== 'success' || response.data === undefined) {
    throw new Error(`Prometheus: ${response.errorType ?? 'error'}: ${response.error ?? 'no data in response'}`);
  }
  return response.data;
}

/** Matrix, vector or scalar results as a list of series (a vector sample is a one-point series). */
export function toSeries(data: PromQueryData): Series[] {
  switch (data.resultType) {
    case 'matrix':
      return data.result.map((s) => ({
        labels: { ...s.metric },
        times: s.values.map(([t]) => Math.round(t * 1000)),
        values: s.values.map(([, v]) => parseSampleValue(v)),
      }));
    case 'vector':
      return data.result.map((s) => ({
        labels: { ...s.metric },
        times: [Math.round(s.value[0] * 1000)],
        values: [parseSampleValue(s.value[1])],
      }));
    case 'scalar':
    case 'string':
      return [{ labels: {}, times: [Math.round(data.result[0] * 1000)], values: [parseSampleValue(data.result[1])] }];
    default:
      throw new Error('Prometheus: unknown result type');
  }
}
