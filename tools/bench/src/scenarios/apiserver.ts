/** Scenario 5 (placeholder until @kubeloop/apiserver's startApiServer lands). */
import type { ScenarioReport } from '../report/scenario-report.js';

export interface ApiServerBenchOptions { starts: number; writes: number; watchers: number; runs: number; log: (line: string) => void }

export async function runApiServerBench(_options: ApiServerBenchOptions): Promise<ScenarioReport> {
  throw new Error('not implemented yet');
}
