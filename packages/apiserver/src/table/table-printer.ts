/**
 * How a kind is printed as a `meta.k8s.io` Table (what `kubectl get` shows): its column
 * definitions and the cells of one object. Built-in kinds have hand-written printers (see
 * `builtin-printers.ts`); custom resources print their CRD's `additionalPrinterColumns` (NAME and
 * AGE when there are none); the CRD kind itself prints NAME and CREATED AT, kube-apiserver's default.
 */
import type { KubeObject } from '@kubeloop/resource';
import type { PrinterColumn } from '../types/resource-type.js';
import { record } from './cell-values.js';
import type { JsonMap } from './cell-values.js';
import { timestampAge } from './human-duration.js';
import { compileJsonPath } from './printer-jsonpath.js';

/** One column of a Table (`metav1.TableColumnDefinition`: every field is always written). */
export interface TableColumnDefinition {
  readonly name: string;
  /** `string`, `integer`, `number`, `boolean` or `date`. */
  readonly type: string;
  /** `name` for the object's name column, else usually ''. */
  readonly format: string;
  readonly description: string;
  /** 0: always shown; higher: only with `kubectl get -o wide`. */
  readonly priority: number;
}

/** Prints one kind as Table rows. */
export interface TablePrinter {
  readonly columnDefinitions: readonly TableColumnDefinition[];
  /** The cells of one object's row, one per column; `now` (ms since the epoch) is for ages. */
  cells(obj: KubeObject, now: number): unknown[];
}

/** ObjectMeta's own descriptions, which kube-apiserver puts on the NAME and AGE columns. */
export const objectMetaDescriptions = {
  name: 'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
  creationTimestamp:
    'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata',
} as const;

/** A column definition; `format` defaults to '' and `priority` to 0. */
export function column(name: string, type: string, description: string, options: { format?: string; priority?: number } = {}): TableColumnDefinition {
  return { name, type, format: options.format ?? '', description, priority: options.priority ?? 0 };
}

/** The NAME column every printer starts with. */
export const nameColumn = column('Name', 'string', objectMetaDescriptions.name, { format: 'name' });

/** The AGE column of the built-in printers (a preformatted string). */
export const ageColumn = column('Age', 'string', objectMetaDescriptions.creationTimestamp);

/** The AGE cell of an object at `now`. */
export function ageCell(obj: KubeObject, now: number): string {
  return timestampAge(obj.metadata.creationTimestamp, now);
}

/** What a declared column's cell is read from (see {@link declaredPrinter}). */
export interface PrinterRow {
  readonly object: KubeObject;
  /** The object's `spec`; {} when it has none. */
  readonly spec: JsonMap;
  /** The object's `status`; {} when it has none. */
  readonly status: JsonMap;
  /** ms since the epoch, for ages. */
  readonly now: number;
}

/** A column declared together with its cell. */
export interface DeclaredColumn {
  readonly name: string;
  /** `string`, `integer`, `number`, `boolean` or `date`. */
  readonly type: string;
  readonly description: string;
  /** Default: ''. */
  readonly format?: string;
  /** Default: 0 (always shown); 1: only with `kubectl get -o wide`. */
  readonly priority?: number;
  cell(row: PrinterRow): unknown;
}

/** The NAME column with its cell. */
export const nameCellColumn: DeclaredColumn = { ...nameColumn, cell: (row) => row.object.metadata.name };

/** The AGE column of the built-in printers with its cell. */
export const ageCellColumn: DeclaredColumn = { ...ageColumn, cell: (row) => ageCell(row.object, row.now) };

/** A printer declared as its columns, in order: each row's cells are the columns' cells. */
export function declaredPrinter(columns: readonly DeclaredColumn[]): TablePrinter {
  return {
    columnDefinitions: columns.map((c) => column(c.name, c.type, c.description, { format: c.format ?? '', priority: c.priority ?? 0 })),
    cells(object, now) {
      const row: PrinterRow = { object, spec: record(object.spec), status: record(object.status), now };
      return columns.map((c) => c.cell(row));
    },
  };
}

/** kube-apiserver's default printer (used for CustomResourceDefinitions): NAME and CREATED AT (RFC 3339). */
export const createdAtPrinter: TablePrinter = {
  columnDefinitions: [nameColumn, column('Created At', 'date', objectMetaDescriptions.creationTimestamp)],
  cells: (obj) => [obj.metadata.name, obj.metadata.creationTimestamp ?? null],
};

/** What a custom resource without printer columns gets: AGE from the creation timestamp. */
const defaultCustomColumns: readonly PrinterColumn[] = [
  { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: objectMetaDescriptions.creationTimestamp },
];

/** The cell of a printer column for the first value its path selected (kube-apiserver's conversions). */
function cellOf(type: string, value: unknown, now: number): unknown {
  if (value === undefined || value === null) return null;
  switch (type) {
    case 'string':
      // Lists and maps print as JSON, like kube-apiserver's JSONPath printer; numbers and booleans as text.
      if (typeof value === 'string') return value;
      if (typeof value === 'number' || typeof value === 'boolean') return String(value);
      return JSON.stringify(value);
    case 'integer':
      return typeof value === 'number' ? Math.trunc(value) : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date':
      return typeof value === 'string' ? timestampAge(value === 'null' ? '' : value, now) : null;
    default:
      return null;
  }
}

/**
 * The printer of a custom resource version from its CRD's `additionalPrinterColumns`: NAME, then
 * each column (a column's description defaults to its path). Without columns: NAME and AGE.
 * A cell is the first value the column's path selects, converted to the column's type, or null.
 */
export function customResourcePrinter(printerColumns: readonly PrinterColumn[] | undefined): TablePrinter {
  const columns = printerColumns?.length ? printerColumns : defaultCustomColumns;
  const paths = columns.map((c) => compileJsonPath(c.jsonPath));
  return {
    columnDefinitions: [
      nameColumn,
      ...columns.map((c) =>
        column(c.name, c.type, c.description || `Custom resource definition column (in JSONPath format): ${c.jsonPath}`, { format: c.format ?? '', priority: c.priority ?? 0 }),
      ),
    ],
    cells(obj, now) {
      const cells: unknown[] = [obj.metadata.name];
      columns.forEach((c, i) => cells.push(cellOf(c.type, paths[i]?.(obj)[0], now)));
      return cells;
    },
  };
}
