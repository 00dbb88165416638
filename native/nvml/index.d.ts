// Typed surface of the jobio NVML addon (native/nvml). Every method runs NVML off the event loop.

export interface NvmlCallError {
  /** The NVML function (e.g. `nvmlDeviceGetPowerUsage`), or `dlopen`. */
  readonly call: string;
  /** nvmlReturn_t (3 NOT_SUPPORTED, 9 DRIVER_NOT_LOADED, 13 FUNCTION_NOT_FOUND, 15 GPU_IS_LOST, …); 0 for dlopen. */
  readonly code: number;
  /** nvmlErrorString() text, or dlerror(). */
  readonly message: string;
}

export type NvmlInitResult =
  | { readonly status: 'ok' }
  /** The library could not be loaded: no NVIDIA driver on this host. */
  | { readonly status: 'no-library'; readonly error: NvmlCallError }
  | { readonly status: 'error'; readonly error: NvmlCallError };

/** One GPU as NVML reported it; a value is missing when its call failed (see `errors`). */
export interface NvmlDeviceSample {
  readonly index: number;
  readonly uuid?: string;
  readonly name?: string;
  readonly energyMillijoules?: number;
  readonly memoryTotalBytes?: number;
  readonly memoryUsedBytes?: number;
  readonly utilizationPercent?: number;
  readonly temperatureCelsius?: number;
  readonly powerMilliwatts?: number;
  readonly pcieTxKilobytesPerSecond?: number;
  readonly pcieRxKilobytesPerSecond?: number;
  /** pids of the compute processes on the GPU. */
  readonly pids?: readonly number[];
  readonly errors: readonly NvmlCallError[];
}

export interface NvmlSample {
  readonly devices: readonly NvmlDeviceSample[];
  /** Failures before any device could be read (device count). */
  readonly errors: readonly NvmlCallError[];
}

export interface NvmlSampleOptions {
  /** Query PCIe throughput (each query samples about 20 ms inside the driver). */
  readonly pcie: boolean;
  /** Query the compute process list of each GPU. */
  readonly processes: boolean;
}

export declare class Nvml {
  /** Nothing is loaded yet: init() dlopens the library (a path or a soname) and calls nvmlInit_v2. */
  constructor(libraryPath: string);
  init(): Promise<NvmlInitResult>;
  /** Rejects with "NVML busy" while an earlier call of this instance has not returned. */
  sample(options: NvmlSampleOptions): Promise<NvmlSample>;
  shutdown(): Promise<void>;
}
