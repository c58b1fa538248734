import { KubeloopError } from '@kubeloop/resource';

/** HTTP status of a {@link PatchError}. */
export type PatchErrorStatus = 400 | 413 | 415 | 422;
/** `Status.reason` of a {@link PatchError}. */
export type PatchErrorReason = 'BadRequest' | 'Invalid' | 'UnsupportedMediaType' | 'RequestEntityTooLarge';

/**
 * A patch that cannot be applied. The API server answers with a `Status` of {@link status} and
 * {@link reason}: 400 BadRequest for a malformed patch (not the expected JSON shape, an unknown
 * operation or directive), 422 Invalid for a well-formed patch that does not apply to the object
 * (a failed RFC 6902 `test`, a missing path, a list item without its merge key), 415 for a patch
 * type the resource does not accept.
 */
export class PatchError extends KubeloopError {
  /** HTTP status to answer with. */
  readonly status: PatchErrorStatus;
  /** `Status.reason` to answer with. */
  readonly reason: PatchErrorReason;

  constructor(status: PatchErrorStatus, reason: PatchErrorReason, message: string, options?: { cause?: unknown }) {
    super('PatchError', message, options);
    this.status = status;
    this.reason = reason;
  }
}

/** 400 BadRequest. */
export function badPatch(message: string): PatchError {
  return new PatchError(400, 'BadRequest', message);
}

/** 422 Invalid. */
export function patchDoesNotApply(message: string): PatchError {
  return new PatchError(422, 'Invalid', message);
}

/** 413 RequestEntityTooLarge: a patch with more work in it than the server allows. */
export function patchTooLarge(message: string): PatchError {
  return new PatchError(413, 'RequestEntityTooLarge', message);
}

/** True for a {@link PatchError}, also from another installed copy of this package. */
export function isPatchError(err: unknown): err is PatchError {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'PatchError';
}
