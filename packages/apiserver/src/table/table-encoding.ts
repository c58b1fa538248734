/**
 * Table JSON as kube-apiserver writes it:
 * `{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":..},"columnDefinitions":[..],"rows":[{"cells":[..],"object":..}]}`.
 * A row's `object` is the object (`includeObject=Object`, reusing its stored JSON), a
 * `PartialObjectMetadata` (`Metadata`, the default) or `null` (`None`). A list's Table carries the
 * list metadata (resourceVersion, continue, remainingItemCount); a single object's Table (get, or
 * a watch event) carries the object's resourceVersion. Watch events after the first one of a
 * stream have `"columnDefinitions":null`, as on a real server (kubectl reuses the first headers).
 */
import type { KubeObject } from '@kubeloop/resource';
import type { TableRequest } from './table-request.js';
import type { TableColumnDefinition, TablePrinter } from './table-printer.js';

/** How a watch writes its events as Tables: the request, the kind's printer, and a key for caching encoded lines. */
export interface TableFormat {
  readonly request: TableRequest;
  readonly printer: TablePrinter;
  /** Equal for formats that encode the same object the same way (for a given type and version). */
  readonly key: string;
}

/** The {@link TableFormat} of a request and printer. */
export function tableFormat(request: TableRequest, printer: TablePrinter): TableFormat {
  return { request, printer, key: `${request.apiVersion} ${request.includeObject}` };
}

/** The JSON of one row for `obj`; `objectJson` gives its JSON at the requested version (only called for `includeObject=Object`). */
export function tableRowJson(printer: TablePrinter, obj: KubeObject, objectJson: () => string, request: TableRequest, now: number): string {
  let object: string;
  if (request.includeObject === 'Object') object = objectJson();
  else if (request.includeObject === 'None') object = 'null';
  else object = `{"kind":"PartialObjectMetadata","apiVersion":${JSON.stringify(request.apiVersion)},"metadata":${JSON.stringify(obj.metadata)}}`;
  return `{"cells":${JSON.stringify(printer.cells(obj, now))},"object":${object}}`;
}

/** A Table's JSON up to its rows (which follow, comma-separated, then `]}`): a large Table is sent as it is made. */
export function tableHead(request: TableRequest, columnDefinitions: readonly TableColumnDefinition[] | undefined, metadata: Readonly<Record<string, unknown>>): string {
  const columns = columnDefinitions === undefined ? 'null' : JSON.stringify(columnDefinitions);
  return `{"kind":"Table","apiVersion":${JSON.stringify(request.apiVersion)},"metadata":${JSON.stringify(metadata)},"columnDefinitions":${columns},"rows":[`;
}

/** The JSON of a Table; `columnDefinitions` undefined writes `null` (a watch event without headers). */
export function tableJson(
  request: TableRequest,
  columnDefinitions: readonly TableColumnDefinition[] | undefined,
  metadata: Readonly<Record<string, unknown>>,
  rows: readonly string[],
): string {
  return `${tableHead(request, columnDefinitions, metadata)}${rows.join(',')}]}`;
}

/** The Table of one object (a get, or the object of a watch event), with or without headers. */
export function singleObjectTableJson(format: TableFormat, obj: KubeObject, objectJson: () => string, headers: boolean, now: number): string {
  const metadata: Record<string, unknown> = {};
  if (obj.metadata.resourceVersion) metadata.resourceVersion = obj.metadata.resourceVersion;
  const { printer, request } = format;
  return tableJson(request, headers ? printer.columnDefinitions : undefined, metadata, [tableRowJson(printer, obj, objectJson, request, now)]);
}
