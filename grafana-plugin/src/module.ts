import { AppPlugin } from '@grafana/data';
import { AppRoot } from './app/AppRoot';

export const plugin = new AppPlugin<{}>().setRootPage(AppRoot);
