/**
 * One set of collectors for the controllers of an `Operator`, labelled by controller (as
 * controller-runtime labels its metrics `controller="name"`). Each controller keeps counting into its
 * own prom-client metrics; for every metric name the set holds one collector that, when scraped, reads
 * the same-named metric of every controller and adds its `controller` label. A registry then holds
 * each name once and shows every controller (before, a second controller's same-named metric was
 * skipped by `OperatorServer`, or made `registerMetric` throw).
 */
import { Counter, Gauge, Histogram, Summary } from 'prom-client';
import type { MetricObjectWithValues, MetricValue, MetricValueWithName } from 'prom-client';
import { InvalidArgumentError } from '../errors.js';
import type { PrometheusCollector } from './metrics.js';

/** A controller's collector and the value of its `controller` label. */
export interface LabelledSource {
  readonly controller: string;
  readonly metric: PrometheusCollector;
}

/** Every controller's samples of one metric name, labelled. */
type Gather = () => Promise<MetricValueWithName<string>[]>;

/**
 * The collectors of a set of controllers, one per metric name. `sources()` is read at every scrape,
 * so a controller added later is scraped under the names it shares with the controllers already
 * there; {@link collectors} returns the same object for a name on every call (registering twice is a no-op).
 */
export class ControllerLabelledMetrics {
  private readonly byName = new Map<string, PrometheusCollector>();

  constructor(private readonly sources: () => readonly LabelledSource[]) {}

  /**
   * One collector per metric name of the current sources.
   * @throws InvalidArgumentError when two controllers have metrics of one name and different types.
   */
  collectors(): PrometheusCollector[] {
    const result: PrometheusCollector[] = [];
    for (const [name, group] of groupByName(this.sources())) {
      const first = group[0]!.metric;
      const type = metricType(first);
      for (const s of group) {
        if (metricType(s.metric) !== type) {
          throw new InvalidArgumentError(`metric ${name} is a ${type} in one controller and a ${metricType(s.metric)} in controller "${s.controller}"`);
        }
      }
      let collector = this.byName.get(name);
      if (collector === undefined) {
        collector = labelledCollector(type, name, metricHelp(first), () => this.gather(name));
        this.byName.set(name, collector);
      }
      result.push(collector);
    }
    return result;
  }

  /** Every controller's samples of `name`, each with its `controller` label (a label the metric already has wins). */
  private async gather(name: string): Promise<MetricValueWithName<string>[]> {
    const values: MetricValueWithName<string>[] = [];
    for (const s of groupByName(this.sources()).get(name) ?? []) {
      const got = (await s.metric.get()) as MetricObjectWithValues<MetricValueWithName<string>>;
      for (const v of got.values) values.push({ ...v, labels: { controller: s.controller, ...v.labels } });
    }
    return values;
  }
}

/** The sources grouped by metric name, in first-seen order; one metric object shared by two controllers counts once. */
function groupByName(sources: readonly LabelledSource[]): Map<string, LabelledSource[]> {
  const groups = new Map<string, LabelledSource[]>();
  for (const s of sources) {
    const name = metricName(s.metric);
    const group = groups.get(name);
    if (group === undefined) groups.set(name, [s]);
    else if (!group.some((g) => g.metric === s.metric)) group.push(s);
  }
  return groups;
}

function metricName(metric: PrometheusCollector): string {
  return (metric as unknown as { name: string }).name;
}

function metricHelp(metric: PrometheusCollector): string {
  return (metric as unknown as { help: string }).help;
}

type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary';

function metricType(metric: PrometheusCollector): MetricType {
  if (metric instanceof Counter) return 'counter';
  if (metric instanceof Histogram) return 'histogram';
  if (metric instanceof Summary) return 'summary';
  return 'gauge';
}

/** The name and help of a labelled collector. */
interface Info {
  readonly name: string;
  readonly help: string;
}

/** What `get()` returns: the name, help and type of the set, and every controller's samples. */
async function labelledValues(info: Info, type: MetricType, gather: Gather): Promise<MetricObjectWithValues<MetricValueWithName<string>>> {
  // prom-client types `type` as a numeric enum; at run time, and in the registry's output, it is the type's name.
  return { ...info, type, aggregator: 'sum', values: await gather() } as unknown as MetricObjectWithValues<MetricValueWithName<string>>;
}

// One subclass per type, so that the registry formats each as its type (OpenMetrics renames counters).
class LabelledCounter extends Counter<string> {
  constructor(
    private readonly info: Info,
    private readonly gatherValues: Gather,
  ) {
    super({ ...info, registers: [] });
  }
  override get(): Promise<MetricObjectWithValues<MetricValue<string>>> {
    return labelledValues(this.info, 'counter', this.gatherValues);
  }
}

class LabelledGauge extends Gauge<string> {
  constructor(
    private readonly info: Info,
    private readonly gatherValues: Gather,
  ) {
    super({ ...info, registers: [] });
  }
  override get(): Promise<MetricObjectWithValues<MetricValue<string>>> {
    return labelledValues(this.info, 'gauge', this.gatherValues);
  }
}

class LabelledHistogram extends Histogram<string> {
  constructor(
    private readonly info: Info,
    private readonly gatherValues: Gather,
  ) {
    super({ ...info, registers: [] });
  }
  override get(): Promise<MetricObjectWithValues<MetricValueWithName<string>>> {
    return labelledValues(this.info, 'histogram', this.gatherValues);
  }
  /** prom-client's registry formats a histogram from this method when it has one (15.x): the same samples. */
  getForPromString(): Promise<MetricObjectWithValues<MetricValueWithName<string>>> {
    return this.get();
  }
}

class LabelledSummary extends Summary<string> {
  constructor(
    private readonly info: Info,
    private readonly gatherValues: Gather,
  ) {
    super({ ...info, registers: [] });
  }
  override get(): Promise<MetricObjectWithValues<MetricValueWithName<string>>> {
    return labelledValues(this.info, 'summary', this.gatherValues);
  }
}

function labelledCollector(type: MetricType, name: string, help: string, gather: Gather): PrometheusCollector {
  switch (type) {
    case 'counter':
      return new LabelledCounter({ name, help }, gather);
    case 'histogram':
      return new LabelledHistogram({ name, help }, gather);
    case 'summary':
      return new LabelledSummary({ name, help }, gather);
    default:
      return new LabelledGauge({ name, help }, gather);
  }
}
