// The page the Chromium test drives: shares the host's libraries with the *built* plugin modules
// (dist/*.js, AMD), runs the built data source on captured Prometheus responses, and renders the
// built panel with its frames in a Grafana theme.
import * as emotionCss from '@emotion/css';
import * as data from '@grafana/data';
import { EventBusSrv, LoadingState, ThemeContext, applyFieldOverrides, createTheme, dateTime, type DataFrame } from '@grafana/data';
import * as runtime from '@grafana/runtime';
import * as ui from '@grafana/ui';
import { PanelContextProvider } from '@grafana/ui';
import React from 'react';
import * as ReactDOM from 'react-dom';
import { createRoot } from 'react-dom/client';
import * as jsxRuntime from 'react/jsx-runtime';
import * as rxjs from 'rxjs';
import { buildDensity } from '../src/panel/heatmap/density';
import { cellOrigin, computeLayout } from '../src/panel/heatmap/layout';
import { framesToSeries } from '../src/panel/heatmap/series';
import { installDefine, loadAmd } from './amd';
import { syntheticFrames } from './synthetic';

interface Capture {
  path: string;
  params: Record<string, string | number>;
  status: number;
  body: unknown;
}
declare global {
  interface Window {
    __captures: Record<string, Capture>;
    __manifest: { fromMs: number; toMs: number; stepSeconds: number; scrapeSeconds: number };
    __harnessReady?: boolean;
    __harnessError?: string;
    __harness?: Record<string, unknown>;
  }
}

// What Grafana's core sets up before plugins run: option editors (stand-ins with the real ids) and
// the template service (no variables on this page).
data.standardEditorsRegistry.setInit(() => ['radio', 'select', 'number', 'text', 'boolean', 'unit'].map((id) => ({ id, name: id, editor: () => null })));
runtime.setTemplateSrv({
  replace: (target?: string) => target ?? '',
  getVariables: () => [],
  containsTemplate: () => false,
  updateTimeRange: () => {},
} as unknown as runtime.TemplateSrv);

installDefine({ react: React, 'react-dom': ReactDOM, 'react/jsx-runtime': jsxRuntime, '@grafana/data': data, '@grafana/ui': ui, '@grafana/runtime': runtime, '@emotion/css': emotionCss, rxjs });

/** getBackendSrv().fetch answering from the captures by path and PromQL (as the jest tests do). */
function captureFetch(options: { url: string; params?: Record<string, unknown> }) {
  const path = options.url.replace(/^\/api\/datasources\/proxy\/uid\/jobio/, '');
  const q = options.params?.['query'] ?? (options.params?.['match[]'] as string[] | undefined)?.[0];
  const c = Object.values(window.__captures).find((x) => x.path === path && (x.params['query'] ?? x.params['match[]']) === q);
  if (!c) {
    return rxjs.throwError(() => ({ status: 404, data: { error: `no capture for ${path} ${String(q)}` } }));
  }
  return rxjs.of({ data: c.body, status: c.status, ok: true });
}

async function framesFromBuiltDataSource(view: string): Promise<DataFrame[]> {
  const dsModule = await loadAmd('../../dist/datasource/module.js');
  runtime.setBackendSrv({ fetch: captureFetch } as unknown as runtime.BackendSrv);
  const DataSource = dsModule['plugin'].DataSourceClass;
  const m = window.__manifest;
  const ds = new DataSource({
    id: 1,
    uid: 'jobio',
    type: 'jobio-jobio-datasource',
    name: 'jobio',
    url: '/api/datasources/proxy/uid/jobio',
    jsonData: { scrapeInterval: `${m.scrapeSeconds}s` },
    meta: {},
    access: 'proxy',
    readOnly: false,
  });
  const from = dateTime(m.fromMs);
  const to = dateTime(m.toMs);
  const targets = view.startsWith('population:')
    ? [{ refId: 'A', queryType: 'population', populationView: view.slice('population:'.length), interval: `${m.stepSeconds}s` }]
    : view === 'heatmap'
      ? [{ refId: 'A', queryType: 'raw', expr: window.__captures['heatmap-mdt-user-rates']?.params['query'] }]
      : [{ refId: 'A', queryType: 'summary', groupBy: 'jobid' }];
  const res = await ds.query({
    requestId: 'h',
    interval: `${m.stepSeconds}s`,
    intervalMs: m.stepSeconds * 1000,
    range: { from, to, raw: { from, to } },
    scopedVars: {},
    targets,
    timezone: 'utc',
    app: 'dashboard',
    startTime: Date.now(),
  });
  return res.data;
}

/**
 * The cluster dashboard's population panels are Grafana's own table and bar chart. The table panel renders @grafana/ui's
 * Table, rendered here with the built data source's frames (field overrides applied as the panel applies them); the bar
 * chart panel is Grafana's (not in @grafana/ui): its frames are rendered as tables too, and their shape is exposed for
 * the driver to check against the committed panel's options (x field, hidden cumulative fields, units).
 */
async function renderPopulation(theme: ReturnType<typeof createTheme>, width: number) {
  const views = ['percentiles', 'summary', 'volume', 'bandwidth'] as const;
  // one after the other: the AMD loader loads one module at a time
  const frames: DataFrame[] = [];
  for (const v of views) {
    frames.push((await framesFromBuiltDataSource(`population:${v}`))[0] as DataFrame);
  }
  const processed = frames.map((f) => applyFieldOverrides({ data: [f], fieldConfig: { defaults: {}, overrides: [] }, replaceVariables: (x: string) => x, theme, timeZone: 'utc' })[0] as DataFrame);
  window.__harness = {
    population: Object.fromEntries(
      views.map((v, i) => [v, { name: frames[i]?.name, fields: frames[i]?.fields.map((f) => ({ name: f.name, type: f.type, unit: f.config.unit ?? '', values: [...f.values] })) }]),
    ),
  };
  const root = createRoot(document.getElementById('root') as HTMLElement);
  root.render(
    <ThemeContext.Provider value={theme}>
      {views.map((v, i) => (
        <div
          key={v}
          data-testid={`jobio-population-${v}`}
          style={{ padding: 8, marginBottom: 8, background: theme.colors.background.primary, border: `1px solid ${theme.colors.border.weak}`, width: width + 16 }}
        >
          <div style={{ fontSize: 14, fontWeight: 500, marginBottom: 8 }}>{frames[i]?.name}</div>
          <ui.Table data={processed[i] as DataFrame} width={width} height={v === 'percentiles' || v === 'summary' ? 180 : 320} />
        </div>
      ))}
    </ThemeContext.Provider>,
  );
  window.__harnessReady = true;
}

async function main() {
  const params = new URLSearchParams(location.search);
  const view = params.get('view') ?? 'summary';
  const mode = params.get('theme') === 'light' ? 'light' : 'dark';
  const width = Number(params.get('width') ?? 1000);
  const height = Number(params.get('height') ?? 380);
  const theme = createTheme({ colors: { mode } });
  document.body.style.background = theme.colors.background.canvas;
  document.body.style.color = theme.colors.text.primary;
  document.body.style.fontFamily = theme.typography.fontFamily;
  if (view === 'population') {
    return renderPopulation(theme, width);
  }

  const appModule = await loadAmd('../../dist/module.js');
  const panelModule = await loadAmd('../../dist/panel/module.js');
  const plugin = panelModule['plugin'];
  const frames =
    params.get('scenario') === 'bench'
      ? syntheticFrames(Number(params.get('series') ?? 10000), Number(params.get('steps') ?? 720), params.get('jobids') === 'array' ? 'array' : 'plain')
      : await framesFromBuiltDataSource(view);
  const series = applyFieldOverrides({ data: frames, fieldConfig: { defaults: {}, overrides: [] }, replaceVariables: (s: string) => s, theme, timeZone: 'utc' });
  const options = { ...plugin.defaults, view };
  const timeRange = { from: dateTime(window.__manifest.fromMs), to: dateTime(window.__manifest.toMs), raw: { from: 'now-1h', to: 'now' } };
  const eventBus = new EventBusSrv();
  const Panel = plugin.panel;

  // Where the busiest non-zero heatmap cell is, for the driver to click (same maths as the panel).
  const heatSeries = framesToSeries(series);
  const index = buildDensity(heatSeries);
  let busiest = { step: 0, row: 1, count: -1 };
  for (let step = 0; step < index.times.length; step++) {
    for (let row = 1; row < index.rows; row++) {
      const count = index.counts[step * index.rows + row] ?? 0;
      if (count > busiest.count) {
        busiest = { step, row, count };
      }
    }
  }
  const layout = computeLayout(width, height, index.times.length, index.rows, true);
  const origin = cellOrigin(layout, busiest);
  window.__harness = {
    app: Boolean(appModule['plugin']?.root),
    // Chromium delivers whole-pixel mouse positions: at 10,000 series × 720 steps a cell is ~1.5 px
    // wide, so aim at the first whole pixel inside it rather than at its centre.
    busiest: { ...busiest, x: layout.cellWidth > 2 ? origin.x + layout.cellWidth / 2 : Math.floor(origin.x) + 1, y: origin.y + layout.cellHeight / 2 },
    maxCount: index.maxCount,
    location: () => runtime.locationService.getSearchObject(),
    renderStart: performance.now(),
  };

  const root = createRoot(document.getElementById('root') as HTMLElement);
  root.render(
    <ThemeContext.Provider value={theme}>
      <PanelContextProvider value={{ eventsScope: 'global', eventBus }}>
        <div style={{ padding: 8, background: theme.colors.background.primary, border: `1px solid ${theme.colors.border.weak}`, width: width + 16 }}>
          <div style={{ fontSize: 14, fontWeight: 500, marginBottom: 8 }}>
            {view === 'heatmap'
              ? params.get('scenario') === 'bench'
                ? `Density of ${frames.length.toLocaleString('en')} synthetic per-series rates`
                : 'Density of per-user metadata rates on scratch-MDT0000'
              : 'Job I/O summary (red/yellow/green)'}
          </div>
          <Panel
            id={1}
            data={{ state: LoadingState.Done, series, timeRange }}
            timeRange={timeRange}
            timeZone="utc"
            options={options}
            fieldConfig={{ defaults: {}, overrides: [] }}
            transparent={false}
            width={width}
            height={height}
            renderCounter={0}
            title="jobio"
            eventBus={eventBus}
            replaceVariables={(s: string) => s}
            onOptionsChange={() => {}}
            onFieldConfigChange={() => {}}
            onChangeTimeRange={() => {}}
          />
        </div>
      </PanelContextProvider>
    </ThemeContext.Provider>,
  );
  window.__harnessReady = true;
}

main().catch((e: unknown) => {
  window.__harnessError = e instanceof Error ? `${e.message}\n${e.stack}` : String(e);
});
