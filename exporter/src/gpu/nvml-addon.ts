// Loads the NVML addon (native/nvml), built by `npm run build`. The addon itself loads no NVIDIA
// code until Nvml.init() dlopens the library, so loading it is safe on every host.
import { createRequire } from 'node:module';
import type * as Addon from '../../../native/nvml/index.js';
import { findRepoFile } from '../profiler/repo-file.js';

export type { Nvml, NvmlSample, NvmlDeviceSample, NvmlCallError, NvmlInitResult } from '../../../native/nvml/index.js';
export type NvmlAddon = typeof Addon;

const ADDON = 'native/nvml/build/Release/jobio_nvml.node';

/** The addon, or an Error telling how to build it. */
export function loadNvmlAddon(): NvmlAddon {
  const path = findRepoFile(ADDON);
  if (!path) throw new Error(`the NVML addon is not built (${ADDON} not found): run \`npm run build\` in the jobio checkout`);
  return createRequire(import.meta.url)(path) as NvmlAddon;
}
