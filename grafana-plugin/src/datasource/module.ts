import { DataSourcePlugin } from '@grafana/data';
import { ConfigEditor } from './components/ConfigEditor';
import { QueryEditor } from './components/QueryEditor';
import { VariableQueryEditor } from './components/VariableQueryEditor';
import { JobioDataSource } from './datasource';
import type { JobioOptions, JobioQuery } from './types';

export const plugin = new DataSourcePlugin<JobioDataSource, JobioQuery, JobioOptions>(JobioDataSource)
  .setConfigEditor(ConfigEditor)
  .setQueryEditor(QueryEditor)
  .setVariableQueryEditor(VariableQueryEditor);
