/**
 * A small Prometheus-compatible metrics registry: counters, gauges and histograms with labels,
 * rendered in the text exposition format. Enough for turn latency, token usage, 429s and
 * queue depth without a dependency.
 */
type Labels = Readonly<Record<string, string>>;

interface Series {
  labels: Labels;
  value: number;
}

interface HistogramSeries {
  labels: Labels;
  buckets: number[];
  sum: number;
  count: number;
}

const DEFAULT_BUCKETS = [5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10_000, 30_000];

export class MetricsRegistry {
  private readonly counters = new Map<string, { help: string; series: Map<string, Series> }>();
  private readonly gauges = new Map<string, { help: string; series: Map<string, Series> }>();
  private readonly histograms = new Map<
    string,
    { help: string; bounds: readonly number[]; series: Map<string, HistogramSeries> }
  >();

  increment(name: string, help: string, labels: Labels = {}, amount = 1): void {
    const metric = getOrCreate(this.counters, name, () => ({
      help,
      series: new Map<string, Series>(),
    }));
    const series = getOrCreate(metric.series, labelKey(labels), () => ({ labels, value: 0 }));
    series.value += amount;
  }

  set(name: string, help: string, value: number, labels: Labels = {}): void {
    const metric = getOrCreate(this.gauges, name, () => ({
      help,
      series: new Map<string, Series>(),
    }));
    getOrCreate(metric.series, labelKey(labels), () => ({ labels, value: 0 })).value = value;
  }

  observe(name: string, help: string, value: number, labels: Labels = {}): void {
    const metric = getOrCreate(this.histograms, name, () => ({
      help,
      bounds: DEFAULT_BUCKETS,
      series: new Map<string, HistogramSeries>(),
    }));
    const series = getOrCreate(metric.series, labelKey(labels), () => ({
      labels,
      buckets: metric.bounds.map(() => 0),
      sum: 0,
      count: 0,
    }));
    metric.bounds.forEach((bound, index) => {
      if (value <= bound) series.buckets[index] = (series.buckets[index] ?? 0) + 1;
    });
    series.sum += value;
    series.count += 1;
  }

  /** The Prometheus text exposition format (version 0.0.4). */
  render(): string {
    const lines: string[] = [];
    for (const [name, metric] of this.counters) {
      lines.push(`# HELP ${name} ${metric.help}`, `# TYPE ${name} counter`);
      for (const series of metric.series.values())
        lines.push(`${name}${formatLabels(series.labels)} ${series.value}`);
    }
    for (const [name, metric] of this.gauges) {
      lines.push(`# HELP ${name} ${metric.help}`, `# TYPE ${name} gauge`);
      for (const series of metric.series.values())
        lines.push(`${name}${formatLabels(series.labels)} ${series.value}`);
    }
    for (const [name, metric] of this.histograms) {
      lines.push(`# HELP ${name} ${metric.help}`, `# TYPE ${name} histogram`);
      for (const series of metric.series.values()) {
        metric.bounds.forEach((bound, index) => {
          const labels = formatLabels({ ...series.labels, le: String(bound) });
          lines.push(`${name}_bucket${labels} ${series.buckets[index] ?? 0}`);
        });
        lines.push(
          `${name}_bucket${formatLabels({ ...series.labels, le: '+Inf' })} ${series.count}`,
        );
        lines.push(`${name}_sum${formatLabels(series.labels)} ${series.sum}`);
        lines.push(`${name}_count${formatLabels(series.labels)} ${series.count}`);
      }
    }
    return `${lines.join('\n')}\n`;
  }
}

function getOrCreate<K, V>(map: Map<K, V>, key: K, create: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = create();
    map.set(key, value);
  }
  return value;
}

function labelKey(labels: Labels): string {
  return JSON.stringify(Object.entries(labels).sort(([a], [b]) => a.localeCompare(b)));
}

function formatLabels(labels: Labels): string {
  const entries = Object.entries(labels);
  if (entries.length === 0) return '';
  const escaped = entries.map(
    ([key, value]) =>
      `${key}="${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`,
  );
  return `{${escaped.join(',')}}`;
}
