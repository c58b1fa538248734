/**
 * The informer's state machine, as one pure transition function (kube-rs `watcher::step` style).
 *
 * ```
 *          ┌──────────── page with continue ───────────┐
 *          v                                           │
 *   ┌─> Listing ── last page ──> Listed ── committed ──> Watching ──┐ closed / inactive: resume from last RV
 *   │      │                                            ^  │  ^    │
 *   │      └── error ──> BackingOff ── elapsed ─────────┘  │  └────┘
 *   │                        ^                             │
 *   │                        └──── error (not 410) ────────┤
 *   └──────────────────────── 410 Gone ────────────────────┘
 *   any state ── aborted ──> Stopped
 * ```
 *
 * The driver ({@link KubernetesBasedInformer}) performs the I/O that belongs to a state (list a
 * page, commit the list, watch, sleep) and feeds the outcome back as an {@link InformerInput}.
 * Watch events are applied by the driver while in `Watching` and are not transitions: the state
 * only changes when a watch ends.
 */
import { isApiError, isGone } from '@kubeloop/resource';
import type { Backoff } from './backoff.js';

/** Why a full list was started. */
export type RelistReason =
  /** The first list of a run. */
  | 'initial'
  /** The watch's resourceVersion is gone from the server's history (410): relist and diff. */
  | 'expired';

/** List the next page (`continueToken` undefined = start a fresh list and a fresh buffer). */
export interface ListingState {
  readonly phase: 'Listing';
  readonly reason: RelistReason;
  readonly continueToken: string | undefined;
}

/** Every page is in the buffer: diff it against the store, swap the store, deliver the events. */
export interface ListedState {
  readonly phase: 'Listed';
  readonly reason: RelistReason;
  readonly resourceVersion: string;
}

/** Watch from `resourceVersion`. `afterList`: the watch starts right after a list (not a resume). */
export interface WatchingState {
  readonly phase: 'Watching';
  readonly resourceVersion: string;
  readonly afterList: boolean;
}

/** Wait `delayMs`, then go to `next`. `cause` is the error being backed off from. */
export interface BackingOffState {
  readonly phase: 'BackingOff';
  readonly delayMs: number;
  readonly cause: unknown;
  readonly next: ListingState | WatchingState;
}

/** The signal aborted: the run is over. */
export interface StoppedState {
  readonly phase: 'Stopped';
}

/** Every state of an informer run. */
export type InformerState = ListingState | ListedState | WatchingState | BackingOffState | StoppedState;

/** Statistics of one watch connection, used to tell a healthy watch from one that dies at once. */
export interface WatchStats {
  /** The last resourceVersion seen (of an event or a bookmark), or the one the watch started from. */
  readonly resourceVersion: string;
  /** Events (bookmarks included) received on this connection. */
  readonly events: number;
  /** How long the connection lived. */
  readonly durationMs: number;
}

/** The outcome of the I/O of a state, fed back into {@link transition}. */
export type InformerInput =
  | { readonly type: 'listPage'; readonly resourceVersion: string; readonly continueToken: string | undefined }
  | { readonly type: 'listFailed'; readonly error: unknown }
  | { readonly type: 'committed' }
  | ({ readonly type: 'watchClosed' } & WatchStats)
  | ({ readonly type: 'watchFailed'; readonly error: unknown } & WatchStats)
  | ({ readonly type: 'watchInactive' } & WatchStats)
  | { readonly type: 'backoffElapsed' }
  | { readonly type: 'aborted' };

/** What the transition function may consult besides the state and the input. */
export interface TransitionDeps {
  readonly backoff: Backoff;
}

/** A watch that ends with no event within this time did not really work: back off before the next one. */
export const shortWatchMs = 1000;

/** The state a run starts in. */
export const initialInformerState: ListingState = { phase: 'Listing', reason: 'initial', continueToken: undefined };

/** The input does not belong to the state: a bug in the driver. */
export class InvalidTransitionError extends Error {
  constructor(state: InformerState, input: InformerInput) {
    super(`informer: input '${input.type}' is not valid in phase '${state.phase}'`);
    this.name = 'InvalidTransitionError';
  }
}

/**
 * The one transition function. Rules:
 * 1. `aborted` -> Stopped, from anywhere.
 * 2. Listing: a page with a continue token -> Listing(next page); the last page -> Listed(list RV);
 *    410 (expired continue token) -> back off, then a fresh list; any other error -> back off, then retry the page.
 * 3. Listed: committed -> Watching(list RV).
 * 4. Watching: closed -> resume from the last RV at once (back off first if it closed within
 *    {@link shortWatchMs} without a single event); inactive -> resume at once; 410 -> relist at once
 *    (back off first if the watch started right after a list and saw no event, so a server that
 *    keeps answering 410 is not hammered); any other error -> back off, then resume from the last RV.
 * 5. BackingOff: elapsed -> the state it was waiting to enter.
 * Every backoff delay is `backoff.next()`, floored by the error's Retry-After.
 */
export function transition(state: InformerState, input: InformerInput, deps: TransitionDeps): InformerState {
  if (input.type === 'aborted') return stopped;
  switch (state.phase) {
    case 'Listing':
      if (input.type === 'listPage') {
        if (input.continueToken) return { phase: 'Listing', reason: state.reason, continueToken: input.continueToken };
        return { phase: 'Listed', reason: state.reason, resourceVersion: input.resourceVersion };
      }
      if (input.type === 'listFailed') {
        const next: ListingState = isGone(input.error) ? { phase: 'Listing', reason: state.reason, continueToken: undefined } : state;
        return backingOff(input.error, next, deps);
      }
      break;
    case 'Listed':
      if (input.type === 'committed') return { phase: 'Watching', resourceVersion: state.resourceVersion, afterList: true };
      break;
    case 'Watching': {
      if (input.type !== 'watchClosed' && input.type !== 'watchFailed' && input.type !== 'watchInactive') break;
      const resume: WatchingState = { phase: 'Watching', resourceVersion: input.resourceVersion || state.resourceVersion, afterList: false };
      const diedAtOnce = input.events === 0 && input.durationMs < shortWatchMs;
      if (input.type === 'watchInactive') return resume;
      if (input.type === 'watchClosed') return diedAtOnce ? backingOff(new Error('watch closed without any event'), resume, deps) : resume;
      if (isGone(input.error)) {
        const relist: ListingState = { phase: 'Listing', reason: 'expired', continueToken: undefined };
        return state.afterList && input.events === 0 ? backingOff(input.error, relist, deps) : relist;
      }
      return backingOff(input.error, resume, deps);
    }
    case 'BackingOff':
      if (input.type === 'backoffElapsed') return state.next;
      break;
    case 'Stopped':
      break;
  }
  throw new InvalidTransitionError(state, input);
}

const stopped: StoppedState = { phase: 'Stopped' };

function backingOff(cause: unknown, next: ListingState | WatchingState, deps: TransitionDeps): BackingOffState {
  return { phase: 'BackingOff', delayMs: Math.max(deps.backoff.next(), retryAfterMs(cause)), cause, next };
}

/** The server's Retry-After (429, 503) in milliseconds, or 0. */
export function retryAfterMs(error: unknown): number {
  if (!isApiError(error)) return 0;
  const seconds = error.retryAfterSeconds;
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 0;
}
