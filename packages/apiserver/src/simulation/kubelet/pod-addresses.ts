/** Pod IPs from each Node's range (`10.244.N.0/24` on `node-N`): the lowest address no running Pod of the Node holds. */
import { podFinished } from './simulated-cluster.js';
import type { PodShape, SimulatedCluster } from './simulated-cluster.js';

/** A free Pod IP on the Node at `index`; throws when its 253 addresses are all held. */
export function allocatePodIp(cluster: SimulatedCluster, nodeName: string, index: number): string {
  const held = new Set<string>();
  for (const stored of cluster.podsOn(nodeName)) {
    if (podFinished(stored.object)) continue;
    const ip = (stored.object.status as { podIP?: string } | undefined)?.podIP;
    if (ip) held.add(ip);
  }
  for (const run of cluster.runs.values()) held.add(run.podIP);
  for (let host = 2; host < 255; host++) {
    const ip = `10.244.${index}.${host}`;
    if (!held.has(ip)) return ip;
  }
  throw new Error(`node ${nodeName} has no free Pod IP (10.244.${index}.0/24 is full)`);
}

/** Whether `nodeName` is a simulated Node hosting the Pod spec. */
export function boundToSimulatedNode(cluster: SimulatedCluster, spec: PodShape): boolean {
  return spec.nodeName !== undefined && cluster.nodeIndex(spec.nodeName) !== undefined;
}
