/**
 * What a program runs against: an API server and an operator, either in the test's own process
 * (the default: fastest, and the heap is the operator's) or each in a child process of its own, as
 * users deploy an operator (`processes`): there a process that exits by itself is seen.
 */
import type { ConfigMap, Client } from '@kubeloop/resource';
import type { Gadget } from './cluster.js';
import { ReliabilityCluster } from './cluster.js';
import { OperatorUnderTest } from './operator-under-test.js';
import type { ErrorCounts, HandlerUnderTest } from './operator-under-test.js';
import type { FaultCommand } from '../support/child-protocol.js';

/** The API server of a program. */
export interface ProgramCluster {
  readonly gadgets: Client<Gadget>;
  readonly configMaps: Client<ConfigMap>;
  readonly url: string;
  /** Applies a fault (the restart fault is {@link restart}). */
  fault(command: FaultCommand): Promise<void>;
  /** Stops the server and starts it again on the same data directory and port. */
  restart(): Promise<void>;
  /** Stops it; what went wrong with it while it ran (a server process that exited unasked). */
  stop(): Promise<string[]>;
}

/** The operator of a program. */
export interface ProgramOperator {
  /** Informers (each holds one watch), to size the `gap` fault. */
  readonly informerCount: number;
  hasSynced(): Promise<boolean>;
  setHandlerDelay(ms: number): Promise<void>;
  /** Every handler's record as of now. */
  handlers(): Promise<readonly HandlerUnderTest[]>;
  errors(): Promise<ErrorCounts>;
  /** Stops it; what broke the rules of a running operator (it stopped or exited by itself, or did not stop cleanly). */
  shutdown(): Promise<string[]>;
}

/** The server in this process (the test kit's environment on a data directory). */
export async function clusterInThisProcess(dataDir: string): Promise<ProgramCluster> {
  const cluster = await ReliabilityCluster.start(dataDir);
  return {
    gadgets: cluster.gadgets,
    configMaps: cluster.configMaps,
    url: cluster.url,
    fault: async (command) => {
      const faults = cluster.faults;
      if (command.op === 'dropWatches') faults.dropWatches(command.options);
      else if (command.op === 'failNext') faults.failNext(command.rule);
      else if (command.op === 'compact') faults.compact();
      else if (command.op === 'latency') faults.latency(command.ms);
      else faults.reset();
    },
    restart: () => cluster.restart(),
    stop: async () => {
      await cluster.stop();
      return [];
    },
  };
}

/** The operator in this process, started. */
export function operatorInThisProcess(url: string): ProgramOperator {
  const operator = new OperatorUnderTest(url);
  operator.start();
  return {
    informerCount: operator.informerCount,
    hasSynced: async () => operator.hasSynced(),
    setHandlerDelay: async (ms) => {
      operator.handlerDelayMs = ms;
    },
    handlers: async () => operator.handlers,
    errors: async () => operator.errors,
    shutdown: async () => {
      await operator.shutdown();
      const error = operator.runError;
      return error === undefined ? [] : [`the operator stopped by itself: ${error instanceof Error ? error.message : JSON.stringify(error)}`];
    },
  };
}
