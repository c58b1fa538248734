/** Which simulated controllers run, by the simulation's settings: one line per controller. */
import { serviceAccountController } from './controllers/service-accounts.js';
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
