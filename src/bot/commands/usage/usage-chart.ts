import { createCanvas, GlobalFonts } from '@napi-rs/canvas';
import {
  BarController,
  BarElement,
  CategoryScale,
  Chart,
  Legend,
  LinearScale,
  Title,
  type ChartConfiguration,
} from 'chart.js';
import type { DailySeries } from './usage-report.ts';

/**
 * The chart `/usage` attaches: a stacked bar per UTC day, a colour per model. Loaded only on the
 * first `/usage` (chart.js and the Skia canvas are the heaviest things the bot can load, and
 * most processes never draw a chart).
 */

export const CHART_WIDTH = 1_000;
export const CHART_HEIGHT = 500;

/**
 * An opaque light card with dark text reads the same in Discord's dark and light themes (a
 * transparent chart would lose its text on one of them). The series colours are Discord's own
 * saturated palette, each distinct from the card, the grid and one another.
 */
export const CHART_COLOURS = {
  background: '#f7f8fa',
  text: '#2e3338',
  grid: '#d4d7dc',
  series: ['#5865f2', '#eb459e', '#23a55a', '#f0b232', '#e67e22'],
  other: '#80848e',
} as const;

export interface UsageChartInput {
  /** Axis labels, oldest first (e.g. `11-26`). */
  labels: string[];
  series: DailySeries[];
  /** Money (nano-dollars, drawn in dollars) or tokens. */
  unit: 'cost' | 'tokens';
  title: string;
  /** The legend's name for the models summed as one. */
  otherLabel: string;
}

let registered = false;

/** Draws the chart as a PNG of CHART_WIDTH × CHART_HEIGHT. */
export async function renderUsageChart(input: UsageChartInput): Promise<Buffer> {
  if (!registered) {
    Chart.register(BarController, BarElement, CategoryScale, LinearScale, Legend, Title);
    registered = true;
  }
  const canvas = createCanvas(CHART_WIDTH, CHART_HEIGHT);
  // chart.js takes any object with getContext('2d'); Skia's canvas is one.
  const chart = new Chart(canvas, chartConfiguration(input));
  try {
    // The card goes under what chart.js drew (it clears the canvas before drawing).
    const context = canvas.getContext('2d');
    context.globalCompositeOperation = 'destination-over';
    context.fillStyle = CHART_COLOURS.background;
    context.fillRect(0, 0, CHART_WIDTH, CHART_HEIGHT);
    return await canvas.encode('png');
  } finally {
    chart.destroy();
  }
}

/** The colour of the series at `index` (the summed rest is grey). */
export function seriesColour(series: DailySeries, index: number): string {
  if (series.model === '') return CHART_COLOURS.other;
  return CHART_COLOURS.series[index % CHART_COLOURS.series.length] ?? CHART_COLOURS.other;
}

function chartConfiguration(input: UsageChartInput): ChartConfiguration<'bar'> {
  const family = fontFamily();
  const font = { family, size: 14 };
  const scale = {
    stacked: true,
    grid: { color: CHART_COLOURS.grid },
    ticks: { color: CHART_COLOURS.text, font },
  };
  return {
    type: 'bar',
    data: {
      labels: input.labels,
      datasets: input.series.map((series, index) => ({
        label: series.model === '' ? input.otherLabel : series.model,
        data: input.unit === 'cost' ? series.cost.map((nano) => nano / 1e9) : series.tokens,
        backgroundColor: seriesColour(series, index),
        borderWidth: 0,
      })),
    },
    options: {
      responsive: false,
      animation: false,
      devicePixelRatio: 1,
      layout: { padding: 16 },
      scales: {
        x: scale,
        y: {
          ...scale,
          beginAtZero: true,
          ticks: {
            ...scale.ticks,
            callback: (value) =>
              input.unit === 'cost' ? `$${Number(value)}` : Number(value).toLocaleString('en-US'),
          },
        },
      },
      plugins: {
        title: {
          display: true,
          text: input.title,
          color: CHART_COLOURS.text,
          font: { family, size: 18 },
        },
        legend: { labels: { color: CHART_COLOURS.text, font } },
      },
    },
  };
}

/** A family the host has: Skia reads the system's fonts, and "sans-serif" may name none. */
function fontFamily(): string {
  const families = new Set(GlobalFonts.families.map((entry) => entry.family));
  for (const wanted of ['DejaVu Sans', 'Noto Sans', 'Liberation Sans', 'Arial', 'Helvetica']) {
    if (families.has(wanted)) return wanted;
  }
  return 'sans-serif';
}
