import type { BusMetrics, CounterReading, ReadableCounter } from "./port";

// The bus counts in memory, free of any metrics library; its host reads the counts at scrape time
// (exposeBusMetrics in metrics/, a Prometheus collect callback) and exposes them on its metrics port.

const labelKey = (labels: Record<string, string>): string =>
  JSON.stringify(Object.keys(labels).sort().map((k) => [k, labels[k]]));

export class LabeledCounter implements ReadableCounter {
  private readonly counts = new Map<string, CounterReading>();

  constructor(
    readonly name: string,
    readonly help: string,
  ) {}

  inc(labels: Record<string, string>, by = 1): void {
    const key = labelKey(labels);
    const reading = this.counts.get(key);
    if (reading) reading.value += by;
    else this.counts.set(key, { labels: { ...labels }, value: by });
  }

  value(labels: Record<string, string>): number {
    return this.counts.get(labelKey(labels))?.value ?? 0;
  }

  readings(): CounterReading[] {
    return [...this.counts.values()].map((r) => ({ labels: { ...r.labels }, value: r.value }));
  }
}

export interface WritableBusMetrics extends BusMetrics {
  readonly deadLettered: LabeledCounter;
}

export const createBusMetrics = (): WritableBusMetrics => ({
  deadLettered: new LabeledCounter("earshot_bus_dead_lettered_total", "Messages moved to a dead-letter topic after their last failed delivery."),
});
