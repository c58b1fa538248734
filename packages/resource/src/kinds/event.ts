/** The core `v1` Event kind (what `kubectl describe` and `kubectl get events` show). */
import { defineKindFor } from '../define-kind.js';
import type { KubeObject } from '../object.js';

/** A reference to another object, as in `Event.involvedObject`. */
export interface ObjectReference {
  apiVersion?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  /** A path into the object, e.g. `spec.containers{app}`. */
  fieldPath?: string;
}

/** The component (and host) that reported an event. */
export interface EventSource {
  component?: string;
  host?: string;
}

/** Repetitions of an event, for the `events.k8s.io` style of counting. */
export interface EventSeries {
  count?: number;
  /** MicroTime. */
  lastObservedTime?: string;
}

/**
 * A core Event. Timestamps are wire strings; `firstTimestamp`, `lastTimestamp` and `eventTime`
 * may be `null`, as the API server serializes an unset time.
 */
export interface Event extends KubeObject<never, never> {
  involvedObject: ObjectReference;
  /** Short, machine-readable CamelCase reason, e.g. `Reconciled`, `FailedSync`. */
  reason?: string;
  message?: string;
  source?: EventSource;
  /** Time (RFC 3339, seconds). */
  firstTimestamp?: string | null;
  /** Time (RFC 3339, seconds). */
  lastTimestamp?: string | null;
  count?: number;
  type?: 'Normal' | 'Warning' | (string & {});
  /** MicroTime. */
  eventTime?: string | null;
  series?: EventSeries;
  action?: string;
  related?: ObjectReference;
  reportingComponent?: string;
  reportingInstance?: string;
}

/** `v1` Event: namespaced, plural `events`, short name `ev`. */
export const EventKind = defineKindFor<Event>({ group: '', version: 'v1', kind: 'Event', shortNames: ['ev'] });
