// Loads the NVML addon (native/nvml), built by `npm run build`. The addon itself loads no NVIDIA
// code until Nvml.init() dlopens the library, so loading it is safe on every host.
import type * as Addon from '../../../native/nvml/index.js';
import { requireRepoAddon } from '../profiler/repo-file.js';

export type { Nvml, NvmlSample, NvmlDeviceSample, NvmlCallError, NvmlInitResult } from '../../../native/nvml/index.js';
export type NvmlAddon = typeof Addon;

const ADDON = 'native/nvml/build/Release/jobio_nvml.node';

/** The addon, or an Error telling how to build it. */
export function loadNvmlAddon(): NvmlAddon {
  return requireRepoAddon(ADDON, 'NVML') as NvmlAddon;
}
