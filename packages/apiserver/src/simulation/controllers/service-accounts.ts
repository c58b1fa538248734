/**
 * kube-controller-manager's `serviceaccount-token`-less pair of namespace controllers: every
 * active namespace gets the `default` ServiceAccount (serviceaccounts controller) and the
 * `kube-root-ca.crt` ConfigMap holding the cluster's CA (root-ca-cert-publisher), each recreated
 * when deleted and the ConfigMap's data restored when edited.
 */
import type { KubeObject } from '@kubeloop/resource';
import { objectKeyOf } from '../../objects/object-context.js';
import { configMapType, namespaceType } from '../../types/builtin-resources.js';
import { storeKeyOf } from '../../types/resource-type.js';
import type { SimulatedController } from '../simulated-controller.js';
import { builtinType, storedAt } from '../simulation-context.js';
import type { SimulationContext } from '../simulation-context.js';

const rootCaName = 'kube-root-ca.crt';
const defaultServiceAccount = 'default';

/** Publishes `default` and `kube-root-ca.crt` in every namespace; keys are namespace names. */
export function serviceAccountController(ctx: SimulationContext): SimulatedController {
  const serviceAccountType = builtinType(ctx, 'v1', 'ServiceAccount');
  const namespaces = storeKeyOf(namespaceType);
  const serviceAccounts = storeKeyOf(serviceAccountType);
  const configMaps = storeKeyOf(configMapType);
  return {
    name: 'serviceaccount',
    watches: [namespaces, serviceAccounts, configMaps],
    *keysFor(storeKey, event) {
      const meta = event.current.object.metadata;
      if (storeKey === namespaces) yield meta.name;
      else if (storeKey === serviceAccounts && meta.name === defaultServiceAccount && event.type === 'DELETED') yield meta.namespace ?? '';
      else if (storeKey === configMaps && meta.name === rootCaName) yield meta.namespace ?? '';
    },
    *initialKeys() {
      for (const stored of ctx.store.values(namespaces)) yield stored.key;
    },
    async sync(namespace) {
      const ns = storedAt(ctx, namespaceType, namespace);
      if (!ns || ns.object.metadata.deletionTimestamp) return undefined;
      if (!storedAt(ctx, serviceAccountType, objectKeyOf(namespace, defaultServiceAccount))) {
        await ctx.writes.create(serviceAccountType, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: defaultServiceAccount, namespace } });
      }
      const data = { 'ca.crt': ctx.caCertificate };
      const configMap = storedAt(ctx, configMapType, objectKeyOf(namespace, rootCaName));
      if (!configMap) {
        const published: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: rootCaName, namespace, annotations: { 'kubernetes.io/description': rootCaDescription } }, data };
        await ctx.writes.create(configMapType, published);
      } else if (!configMap.object.metadata.deletionTimestamp) {
        await ctx.writes.update(configMapType, configMap, (object) => {
          (object as { data?: unknown }).data = data;
        });
      }
      return undefined;
    },
  };
}

const rootCaDescription =
  'Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. ' +
  'No other usage is guaranteed across distributions of Kubernetes clusters.';
