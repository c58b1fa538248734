/** What happened to an object, as seen by a {@link ResourceWatcher}. */
export type ResourceAction = 'CREATE' | 'UPDATE' | 'DELETE';

export const ResourceActionCreate: ResourceAction = 'CREATE';
export const ResourceActionUpdate: ResourceAction = 'UPDATE';
export const ResourceActionDelete: ResourceAction = 'DELETE';

/** What triggered a reconcile, as seen by a {@link Reconciler}. Values match grafana-app-sdk's iota order. */
export enum ReconcileAction {
  Unknown = 0,
  Created = 1,
  Updated = 2,
  Deleted = 3,
  /** A periodic or start-up re-sync of an object that did not change. */
  Resynced = 4,
}

/** CREATE -> Created, UPDATE -> Updated, DELETE -> Deleted, anything else -> Unknown. */
export function reconcileActionFromResourceAction(action: string): ReconcileAction {
  switch (action) {
    case 'CREATE':
      return ReconcileAction.Created;
    case 'UPDATE':
      return ReconcileAction.Updated;
    case 'DELETE':
      return ReconcileAction.Deleted;
    default:
      return ReconcileAction.Unknown;
  }
}

/** Created -> CREATE, Updated -> UPDATE, Deleted -> DELETE; Resynced and Unknown -> ''. */
export function resourceActionFromReconcileAction(action: ReconcileAction): ResourceAction | '' {
  switch (action) {
    case ReconcileAction.Created:
      return 'CREATE';
    case ReconcileAction.Updated:
      return 'UPDATE';
    case ReconcileAction.Deleted:
      return 'DELETE';
    default:
      return '';
  }
}
