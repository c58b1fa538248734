/** The shape every scenario reports in: a table for people, a chart, and the raw numbers for machines. */
import type { LoadFigures } from '../machine.js';
import type { BarChartSpec } from './svg-bar-chart.js';

/** Identifiers of the scenarios, in report order. */
export type ScenarioId = 'watch-ingest' | 'cache-memory' | 'retry-scheduler' | 'latency' | 'apiserver' | 'runtime-overhead' | 'scale' | 'dev-loop' | 'sharding';

/** A further table of a scenario, printed under its main table. */
export interface ScenarioTable {
  /** One sentence saying what the table shows. */
  caption: string;
  columns: string[];
  rows: string[][];
}

/** One scenario's outcome. */
export interface ScenarioReport<D = unknown> {
  id: ScenarioId;
  /** Heading, e.g. `1. Watch ingest`. */
  title: string;
  /** What was run, with the sizes used. */
  setup: string;
  columns: string[];
  rows: string[][];
  /** Further tables, printed under the main one. Default: none. */
  tables?: ScenarioTable[] | undefined;
  /** Observations worth a sentence (a consumer that could not run, a reconnect seen...). */
  notes: string[];
  chart: BarChartSpec;
  /** Machine-readable numbers (medians and every run). */
  data: D;
  /** The machine's load average while the scenario ran; set by main.ts. Default: not recorded. */
  load?: LoadFigures | undefined;
}

/** One goal of the issue, judged against this run. */
export interface GoalVerdict {
  /** What the issue asks, e.g. `ingest >= 1.0x the raw baseline`. */
  goal: string;
  /** What was measured, e.g. `1.07x`. */
  measured: string;
  /** True met, false missed, undefined when it could not be measured in this run. */
  met: boolean | undefined;
  /** `by 7%` / `short by 12%`, or why it was not measured. */
  margin: string;
}
