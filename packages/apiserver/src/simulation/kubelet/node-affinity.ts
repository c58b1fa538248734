/** A Pod's `nodeSelector` and required node affinity against a Node, as the NodeAffinity filter checks them. */
import type { KubeObject } from '@kubeloop/resource';

interface Requirement {
  readonly key: string;
  readonly operator: string;
  readonly values?: readonly string[];
}

interface NodeSelectorTerm {
  readonly matchExpressions?: readonly Requirement[];
  readonly matchFields?: readonly Requirement[];
}

/** The spec fields the check reads. */
export interface PodPlacement {
  readonly nodeSelector?: Readonly<Record<string, string>>;
  readonly affinity?: { readonly nodeAffinity?: { readonly requiredDuringSchedulingIgnoredDuringExecution?: { readonly nodeSelectorTerms?: readonly NodeSelectorTerm[] } } };
}

function requirementHolds(requirement: Requirement, value: string | undefined): boolean {
  const values = requirement.values ?? [];
  switch (requirement.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
    case 'Lt': {
      const bound = Number(values[0]);
      const actual = Number(value);
      if (value === undefined || !Number.isInteger(actual) || !Number.isInteger(bound)) return false;
      return requirement.operator === 'Gt' ? actual > bound : actual < bound;
    }
    default:
      return false;
  }
}

function termMatches(term: NodeSelectorTerm, node: KubeObject): boolean {
  const labels = node.metadata.labels ?? {};
  const expressions = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  // A term with no requirements matches nothing (as upstream).
  if (expressions.length === 0 && fields.length === 0) return false;
  return (
    expressions.every((r) => requirementHolds(r, labels[r.key])) &&
    fields.every((r) => requirementHolds(r, r.key === 'metadata.name' ? node.metadata.name : undefined))
  );
}

/** Whether `node` satisfies the Pod's `nodeSelector` (every label) and one of its required affinity terms. */
export function matchesNodeSelection(placement: PodPlacement, node: KubeObject): boolean {
  const labels = node.metadata.labels ?? {};
  for (const [key, value] of Object.entries(placement.nodeSelector ?? {})) if (labels[key] !== value) return false;
  const terms = placement.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  return terms === undefined || terms.some((term) => termMatches(term, node));
}
