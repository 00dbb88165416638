// Shapes of the Prometheus HTTP API (v1) responses the data source reads.

export type SampleValue = [number, string];

export interface PromMatrixSeries {
  metric: Record<string, string>;
  values: SampleValue[];
}

export interface PromVectorSample {
  metric: Record<string, string>;
  value: SampleValue;
}

export type PromQueryData = { resultType: 'matrix'; result: PromMatrixSeries[] } | { resultType: 'vector'; result: PromVectorSample[] } | { resultType: 'scalar' | 'string'; result: SampleValue };

export interface PromResponse<T> {
  status: 'success' | 'error';
  data?: T;
  errorType?: string;
  error?: string;
  warnings?: string[];
}

/** One series after parsing: times in ms, values as numbers (NaN/±Inf kept). */
export interface Series {
  labels: Record<string, string>;
  times: number[];
  values: number[];
}
