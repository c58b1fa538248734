/** Scenario 4 (placeholder until @kubeloop/apiserver's startApiServer lands). */
import type { ScenarioReport } from '../report/scenario-report.js';

export interface LatencyOptions { rate: number; seconds: number; runs: number; log: (line: string) => void }
export interface LatencyFigures { consumer: string; p50Ms: number; p99Ms: number }
export interface LatencyData { consumers: LatencyFigures[] }

export async function runLatency(_options: LatencyOptions): Promise<ScenarioReport<LatencyData>> {
  throw new Error('not implemented yet');
}
