/**
 * Table printers of the built-in kinds, with kube-apiserver's columns and cells (its printers run
 * "wide": every column is sent, and kubectl hides those with priority > 0 unless `-o wide`).
 */
import type { KubeObject } from '@kubeloop/resource';
import { timestampAge } from './human-duration.js';
import { countKeys, record, text } from './cell-values.js';
import { ageCellColumn, column, declaredPrinter, nameCellColumn, objectMetaDescriptions } from './table-printer.js';
import type { TablePrinter } from './table-printer.js';

/** Namespaces: NAME, STATUS (the phase), AGE. */
export const namespacePrinter: TablePrinter = declaredPrinter([
  nameCellColumn,
  { name: 'Status', type: 'string', description: 'The status of the namespace', cell: ({ status }) => text(status.phase) },
  ageCellColumn,
]);

/** ConfigMaps: NAME, DATA (keys of data and binaryData), AGE. */
export const configMapPrinter: TablePrinter = declaredPrinter([
  nameCellColumn,
  {
    name: 'Data',
    type: 'string',
    description:
      "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.",
    cell: ({ object }) => countKeys(object.data) + countKeys(object.binaryData),
  },
  ageCellColumn,
]);

/** Secrets: NAME, TYPE, DATA (keys), AGE. */
export const secretPrinter: TablePrinter = declaredPrinter([
  nameCellColumn,
  {
    name: 'Type',
    type: 'string',
    description: 'Used to facilitate programmatic handling of secret data. More info: https://kubernetes.io/docs/concepts/configuration/secret/#secret-types',
    cell: ({ object }) => text(object.type),
  },
  {
    name: 'Data',
    type: 'string',
    description:
      "Data contains the secret data. Each key must consist of alphanumeric characters, '-', '_' or '.'. The serialized form of the secret data is a base64 encoded string, representing the arbitrary (possibly non-string) data value here. Described in https://tools.ietf.org/html/rfc4648#section-4",
    cell: ({ object }) => countKeys(object.data),
  },
  ageCellColumn,
]);

/** Leases: NAME, HOLDER, AGE. */
export const leasePrinter: TablePrinter = declaredPrinter([
  nameCellColumn,
  {
    name: 'Holder',
    type: 'string',
    description:
      'holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field.',
    cell: ({ spec }) => text(spec.holderIdentity),
  },
  ageCellColumn,
]);

/**
 * Events (written out rather than declared: most cells share the fallbacks between timestamps and series).
 * LAST SEEN, TYPE, REASON, OBJECT (`kind/name`), MESSAGE; wide: SUBOBJECT, SOURCE, FIRST
 * SEEN, COUNT, NAME. Times fall back from `lastTimestamp` to `firstTimestamp` to `eventTime`; an
 * event series reports its own last observation and count; a singleton event counts 1.
 */
export const eventPrinter: TablePrinter = {
  columnDefinitions: [
    column('Last Seen', 'string', 'The time at which the most recent occurrence of this event was recorded.'),
    column('Type', 'string', 'Type of this event (Normal, Warning), new types could be added in the future'),
    column('Reason', 'string', "This should be a short, machine understandable string that gives the reason for the transition into the object's current status."),
    column('Object', 'string', 'The object that this event is about.'),
    column(
      'Subobject',
      'string',
      'If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2].',
      { priority: 1 },
    ),
    column('Source', 'string', 'The component reporting this event. Should be a short machine understandable string.', { priority: 1 }),
    column('Message', 'string', 'A human-readable description of the status of this operation.'),
    column('First Seen', 'string', 'The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)', { priority: 1 }),
    column('Count', 'string', 'The number of times this event has occurred.', { priority: 1 }),
    column('Name', 'string', objectMetaDescriptions.name, { format: 'name', priority: 1 }),
  ],
  cells(obj: KubeObject, now: number) {
    const involved = record(obj.involvedObject);
    const source = record(obj.source);
    const series = obj.series === undefined || obj.series === null ? undefined : record(obj.series);
    const firstSeen = obj.firstTimestamp ? timestampAge(obj.firstTimestamp, now) : timestampAge(obj.eventTime, now);
    let lastSeen = obj.lastTimestamp ? timestampAge(obj.lastTimestamp, now) : firstSeen;
    let count = typeof obj.count === 'number' ? obj.count : 0;
    if (series) {
      lastSeen = timestampAge(series.lastObservedTime, now);
      count = typeof series.count === 'number' ? series.count : 0;
    } else if (count === 0) {
      count = 1;
    }
    const kind = text(involved.kind).toLowerCase();
    const name = text(involved.name);
    const component = text(source.component) || text(obj.reportingComponent);
    const instance = text(source.host) || text(obj.reportingInstance);
    return [
      lastSeen,
      text(obj.type),
      text(obj.reason),
      name ? `${kind}/${name}` : kind,
      text(involved.fieldPath),
      instance ? `${component}, ${instance}` : component,
      text(obj.message).trim(),
      firstSeen,
      count,
      obj.metadata.name,
    ];
  },
};
