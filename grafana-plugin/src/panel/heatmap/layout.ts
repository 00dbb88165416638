// Geometry of the heatmap plot: margins for the axes, one column per step, one row per bucket, plus an
// optional "no data" row under the zero row. Rows are counted from the bottom.

export interface HeatLayout {
  left: number;
  top: number;
  plotWidth: number;
  plotHeight: number;
  steps: number;
  rows: number;
  showNoData: boolean;
  cellWidth: number;
  cellHeight: number;
}

/** A cell address: `row` −1 is the no-data row. */
export interface CellRef {
  step: number;
  row: number;
}

// left: tick labels plus the rotated value-axis title; bottom: time labels plus the colour legend
// (LEGEND_HEIGHT, drawn over the canvas's bottom edge).
export const LEGEND_HEIGHT = 26;
export const MARGIN = { left: 92, top: 8, right: 8, bottom: 22 + LEGEND_HEIGHT };

export function computeLayout(width: number, height: number, steps: number, rows: number, showNoData: boolean): HeatLayout {
  const plotWidth = Math.max(1, width - MARGIN.left - MARGIN.right);
  const plotHeight = Math.max(1, height - MARGIN.top - MARGIN.bottom);
  const visibleRows = rows + (showNoData ? 1 : 0);
  return {
    left: MARGIN.left,
    top: MARGIN.top,
    plotWidth,
    plotHeight,
    steps,
    rows,
    showNoData,
    cellWidth: plotWidth / Math.max(1, steps),
    cellHeight: plotHeight / Math.max(1, visibleRows),
  };
}

/** Top-left corner of a cell. */
export function cellOrigin(layout: HeatLayout, cell: CellRef): { x: number; y: number } {
  const visual = cell.row + (layout.showNoData ? 1 : 0);
  return {
    x: layout.left + cell.step * layout.cellWidth,
    y: layout.top + layout.plotHeight - (visual + 1) * layout.cellHeight,
  };
}

/** The cell under a point in CSS pixels, or undefined outside the plot. */
export function hitTest(layout: HeatLayout, x: number, y: number): CellRef | undefined {
  const step = Math.floor((x - layout.left) / layout.cellWidth);
  const visual = Math.floor((layout.top + layout.plotHeight - y) / layout.cellHeight);
  const row = visual - (layout.showNoData ? 1 : 0);
  if (step < 0 || step >= layout.steps || row < (layout.showNoData ? -1 : 0) || row >= layout.rows) {
    return undefined;
  }
  return { step, row };
}
