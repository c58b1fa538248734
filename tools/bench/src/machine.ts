/** What the numbers were measured on. */
import { cpus, loadavg, totalmem } from 'node:os';

/** The machine of a benchmark run. */
export interface MachineInfo {
  cpuModel: string;
  cores: number;
  memoryGiB: number;
  node: string;
  platform: string;
  arch: string;
}

/** Describes this machine. */
export function machineInfo(): MachineInfo {
  const list = cpus();
  return {
    cpuModel: list[0]?.model.trim() ?? 'unknown',
    cores: list.length,
    memoryGiB: Math.round(totalmem() / 1024 ** 3),
    node: process.version,
    platform: process.platform,
    arch: process.arch,
  };
}

/** The 1-minute load average: above the core count, other processes competed with the benchmark. */
export function loadAverage(): number {
  return Math.round(loadavg()[0]! * 100) / 100;
}

/** The 1-minute load average over a stretch of the run (one scenario): at its start, its highest, at its end. */
export interface LoadFigures {
  start: number;
  max: number;
  end: number;
}

/** Samples {@link loadAverage} every `intervalMs` (default 2,000 ms) until `stop()`, which returns the figures. */
export function sampleLoad(intervalMs = 2000): { stop(): LoadFigures } {
  const start = loadAverage();
  let max = start;
  const timer = setInterval(() => (max = Math.max(max, loadAverage())), intervalMs);
  timer.unref();
  return {
    stop: () => {
      clearInterval(timer);
      const end = loadAverage();
      return { start, max: Math.max(max, end), end };
    },
  };
}
