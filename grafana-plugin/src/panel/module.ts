import { PanelPlugin } from '@grafana/data';
import { JobioPanel } from './components/JobioPanel';
import { buildOptions } from './options';
import type { PanelOptions } from './types';

export const plugin = new PanelPlugin<PanelOptions>(JobioPanel).setPanelOptions(buildOptions);
