// Patch types the API server accepts: RFC 6902, RFC 7386, strategic merge (built-ins), server-side apply.
export { PatchError, isPatchError } from './patch-error.js';
export type { PatchErrorStatus, PatchErrorReason } from './patch-error.js';
export { applyJsonPatch, parseJsonPointer } from './json-patch.js';
export { applyMergePatch } from './merge-patch.js';
export { applyStrategicMergePatch } from './strategic-merge-patch.js';
export { applyServerSideApply, fieldsV1Of } from './server-side-apply.js';
export type { ServerSideApplyOptions } from './server-side-apply.js';
export { ApplyConflictError, managedFieldsAfterUpdate, managerFromUserAgent } from './managed-fields.js';
export type { ApplyConflict, ManagedFieldsEntry, ManagedWrite } from './managed-fields.js';
export { strategyFor } from './patch-strategies.js';
export type { FieldStrategy } from './patch-strategies.js';
