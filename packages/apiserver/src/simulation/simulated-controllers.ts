/** Which simulated controllers run, by the simulation's settings: one line per controller. */
import { cronJobController } from './controllers/cron-jobs.js';
import { daemonSetController } from './controllers/daemon-sets.js';
import { endpointsController } from './controllers/endpoints.js';
import { jobController } from './controllers/jobs.js';
import { deploymentController } from './controllers/deployments.js';
import { replicaSetController } from './controllers/replica-sets.js';
import { replicationControllerController } from './controllers/replication-controllers.js';
import { serviceAccountController } from './controllers/service-accounts.js';
import { statefulSetController } from './controllers/stateful-sets.js';
import { kubeletController } from './kubelet/kubelet.js';
import { nodeAgentController } from './kubelet/node-agent.js';
import { nodeLifecycleController } from './kubelet/node-lifecycle.js';
import { schedulerController } from './kubelet/scheduler.js';
import { SimulatedCluster } from './kubelet/simulated-cluster.js';
import type { SimulatedController } from './simulated-controller.js';
import type { SimulationContext } from './simulation-context.js';

/** The controllers of a simulation, in the order they are started. */
export function simulatedControllers(ctx: SimulationContext): SimulatedController[] {
  const controllers: SimulatedController[] = [];
  if (ctx.settings.controllers) {
    controllers.push(serviceAccountController(ctx));
    controllers.push(endpointsController(ctx));
    controllers.push(jobController(ctx));
    controllers.push(cronJobController(ctx));
    controllers.push(statefulSetController(ctx));
    controllers.push(daemonSetController(ctx));
    controllers.push(deploymentController(ctx));
    controllers.push(replicaSetController(ctx));
    controllers.push(replicationControllerController(ctx));
  }
  if (ctx.settings.kubelet) {
    const cluster = new SimulatedCluster(ctx, ctx.settings.kubelet);
    controllers.push(nodeAgentController(cluster));
    controllers.push(schedulerController(cluster));
    controllers.push(kubeletController(cluster));
    controllers.push(nodeLifecycleController(cluster));
  }
  return controllers;
}
