// Canvas drawing of the density heatmap: cells batched by colour level, then the axes.
import { dateTimeFormat } from '@grafana/data';
import { logLevel } from './colors';
import type { DensityIndex } from './density';
import { rowLabel, valueAxisTitle } from './labels';
import { type HeatLayout, cellOrigin } from './layout';

export interface DrawStyle {
  palette: string[];
  text: string;
  axis: string;
  noData: string;
  font: string;
  unit: string;
  timeZone: string;
}

export function drawHeatmap(ctx: CanvasRenderingContext2D, index: DensityIndex, layout: HeatLayout, style: DrawStyle): void {
  const { cellWidth: w, cellHeight: h } = layout;
  const gap = w > 6 ? 1 : 0;
  const byLevel: Array<Array<[number, number]>> = style.palette.map(() => []);
  for (let step = 0; step < layout.steps; step++) {
    for (let row = 0; row < index.rows; row++) {
      const level = logLevel(index.counts[step * index.rows + row] as number, index.maxCount);
      if (level >= 0) {
        byLevel[level]?.push([step, row]);
      }
    }
  }
  byLevel.forEach((cells, level) => {
    if (cells.length === 0) {
      return;
    }
    ctx.fillStyle = style.palette[level] as string;
    for (const [step, row] of cells) {
      const o = cellOrigin(layout, { step, row });
      ctx.fillRect(o.x, o.y, Math.max(1, w - gap), Math.max(1, h - gap));
    }
  });
  if (layout.showNoData && index.seriesCount > 0) {
    ctx.fillStyle = style.noData;
    for (let step = 0; step < layout.steps; step++) {
      const missing = index.noData[step] as number;
      if (missing > 0) {
        ctx.globalAlpha = 0.2 + (0.7 * missing) / index.seriesCount;
        const o = cellOrigin(layout, { step, row: -1 });
        ctx.fillRect(o.x, o.y, Math.max(1, w - gap), Math.max(1, h - gap));
      }
    }
    ctx.globalAlpha = 1;
  }
  drawAxes(ctx, index, layout, style);
}

function drawAxes(ctx: CanvasRenderingContext2D, index: DensityIndex, layout: HeatLayout, style: DrawStyle): void {
  ctx.font = style.font;
  ctx.fillStyle = style.text;
  ctx.strokeStyle = style.axis;
  ctx.lineWidth = 1;
  ctx.beginPath();
  ctx.moveTo(layout.left - 0.5, layout.top);
  ctx.lineTo(layout.left - 0.5, layout.top + layout.plotHeight + 0.5);
  ctx.lineTo(layout.left + layout.plotWidth, layout.top + layout.plotHeight + 0.5);
  ctx.stroke();
  ctx.textAlign = 'right';
  ctx.textBaseline = 'middle';
  const every = Math.max(1, Math.ceil(14 / layout.cellHeight));
  for (let row = layout.showNoData ? -1 : 0; row < index.rows; row++) {
    if (row > 0 && row % every !== 0 && row !== index.rows - 1) {
      continue;
    }
    const o = cellOrigin(layout, { step: 0, row });
    ctx.fillText(rowLabel(index, row, style.unit), layout.left - 6, o.y + layout.cellHeight / 2);
  }
  // Value-axis title, rotated along the left edge: what the rows measure and in which unit.
  ctx.save();
  ctx.translate(2, layout.top + layout.plotHeight / 2);
  ctx.rotate(-Math.PI / 2);
  ctx.textAlign = 'center';
  ctx.textBaseline = 'top';
  ctx.fillText(valueAxisTitle(style.unit), 0, 0, layout.plotHeight);
  ctx.restore();
  ctx.textAlign = 'center';
  ctx.textBaseline = 'top';
  const span = ((index.times[index.times.length - 1] ?? 0) - (index.times[0] ?? 0)) / 1000;
  const format = span < 600 ? 'HH:mm:ss' : span < 2 * 86400 ? 'HH:mm' : 'MM-DD HH:mm';
  const ticks = Math.max(1, Math.floor(layout.plotWidth / 110));
  const spacing = Math.max(1, Math.floor(layout.steps / ticks));
  for (let step = 0; step < layout.steps; step += spacing) {
    const x = layout.left + (step + 0.5) * layout.cellWidth;
    const t = index.times[step] as number;
    ctx.fillText(dateTimeFormat(t, { format, timeZone: style.timeZone }), x, layout.top + layout.plotHeight + 6);
  }
}
