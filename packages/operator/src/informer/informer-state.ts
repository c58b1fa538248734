/**
 * The informer's state machine, as one pure transition function (kube-rs `watcher::step` style).
 *
 * ```
 *          ┌──────────── page with continue ───────────┐
 *          v                                           │
 *   ┌─> Listing ── last page ──> Listed ── committed ──> Watching ──┐ clean end / inactive: resume from last RV
 *   │      │                                            ^  │  ^    │
 *   │      └── error ──> BackingOff ── elapsed ─────────┘  │  └────┘
 *   │                        ^                             │
 *   │                        └──── error (not 410) ────────┤
 *   └──────────────────────── 410 Gone ────────────────────┘
 *   any state ── aborted ──> Stopped
 * ```
 *
 * With the streaming initial list (`initialListStrategy` 'watchList' or 'auto'), every arrow into
 * Listing from the top (the initial list, a 410) enters StreamingList instead: one watch with
 * `sendInitialEvents=true` fills the buffer until the `k8s.io/initial-events-end` bookmark, then
 * Listed as after a paginated list. 'auto' falls back to a paginated list when the server refuses
 * the streaming request (see {@link refusesStreamingList}).
 *
 * ```
 *   StreamingList ── initial-events-end ──> Listed
 *        │  └─ refused, 'auto' ──> Listing (paginated, at once)
 *        └── other error ──> BackingOff ── elapsed ──> StreamingList
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

/**
 * How an informer builds its initial state, and its state after a 410:
 * - `list`: a paginated LIST (kube-rs' default);
 * - `watchList`: one watch with `sendInitialEvents=true`, `resourceVersionMatch=NotOlderThan` and
 *   bookmarks, read until the `k8s.io/initial-events-end` bookmark (client-go's WatchList, kube-rs'
 *   `InitialListStrategy::StreamingList`); failures back off and stream again;
 * - `auto`: as `watchList`, but a server that refuses the streaming request gets a paginated LIST.
 */
export type InitialListStrategy = 'list' | 'watchList' | 'auto';

/** Stream the initial state from one watch into a fresh buffer. `fallback`: a refusal lists instead (`auto`). */
export interface StreamingListState {
  readonly phase: 'StreamingList';
  readonly reason: RelistReason;
  readonly fallback: boolean;
}

/** Every page is in the buffer: diff it against the store, swap the store, deliver the events. */
export interface ListedState {
  readonly phase: 'Listed';
  readonly reason: RelistReason;
  readonly resourceVersion: string;
}

/**
 * Watch from `resourceVersion`. `afterList`: the watch starts right after a list (not a resume).
 * `instantCloses`: how many watches in a row, just before this one, ended cleanly at once (no
 * event, open for less than {@link shortWatchMs}).
 */
export interface WatchingState {
  readonly phase: 'Watching';
  readonly resourceVersion: string;
  readonly afterList: boolean;
  readonly instantCloses: number;
}

/**
 * Why the informer waits before its next request:
 * - `error`: a list or watch failed; the delay comes from the error backoff (and Retry-After);
 * - `instantClose`: watches keep ending cleanly at once; a fixed {@link instantClosePauseMs}
 *   pause, so a server that closes every watch at once is not hammered. Not an error.
 */
export type BackoffReason = 'error' | 'instantClose';

/** Wait `delayMs`, then go to `next`. `cause` is the error being backed off from (undefined for an instant close). */
export interface BackingOffState {
  readonly phase: 'BackingOff';
  readonly reason: BackoffReason;
  readonly delayMs: number;
  readonly cause: unknown;
  readonly next: ListingState | StreamingListState | WatchingState;
}

/** The signal aborted: the run is over. */
export interface StoppedState {
  readonly phase: 'Stopped';
}

/** Every state of an informer run. */
export type InformerState = ListingState | StreamingListState | ListedState | WatchingState | BackingOffState | StoppedState;

/** Statistics of one watch connection, used to tell a healthy watch from one that dies at once. */
export interface WatchStats {
  /** The last resourceVersion seen (of an event or a bookmark), or the one the watch started from. */
  readonly resourceVersion: string;
  /** Events received on this connection: objects and bookmarks, not an `ERROR` event. */
  readonly events: number;
  /** How long the connection lived. */
  readonly durationMs: number;
}

/** The outcome of the I/O of a state, fed back into {@link transition}. */
export type InformerInput =
  | { readonly type: 'listPage'; readonly resourceVersion: string; readonly continueToken: string | undefined }
  | { readonly type: 'listFailed'; readonly error: unknown }
  | { readonly type: 'streamEnded'; readonly resourceVersion: string }
  | { readonly type: 'streamFailed'; readonly error: unknown }
  | { readonly type: 'committed' }
  | ({ readonly type: 'watchClosed' } & WatchStats)
  | ({ readonly type: 'watchFailed'; readonly error: unknown } & WatchStats)
  | ({ readonly type: 'watchInactive' } & WatchStats)
  | { readonly type: 'backoffElapsed' }
  | { readonly type: 'aborted' };

/** What the transition function may consult besides the state and the input. */
export interface TransitionDeps {
  readonly backoff: Backoff;
  /** How lists start (the first one and those after a 410). Default: 'list'. */
  readonly initialListStrategy?: InitialListStrategy | undefined;
}

/** A watch that ends cleanly with no event within this time closed "at once" (see {@link instantClosePauseMs}). */
export const shortWatchMs = 1000;

/**
 * The pause before re-watching after the second and every further watch in a row that ended
 * cleanly at once. The first such end re-watches at once (a server-side timeout or a graceful drop
 * can happen right after a reconnect); a server that ends every watch at once gets one watch
 * request per second, not a tight loop. It is not an error and does not touch the error backoff.
 */
export const instantClosePauseMs = 1000;

/**
 * A watch that delivered an event or a bookmark, or stayed open this long, worked: the error backoff
 * starts over from its first delay, whatever ended the watch (client-go and kube-rs reset theirs
 * once things work again). The backoff's own reset after 120 s without errors still applies.
 */
export const healthyWatchMs = 10_000;

/** The state a run starts in. */
export const initialInformerState: ListingState = { phase: 'Listing', reason: 'initial', continueToken: undefined };

/** The state a run starts in, for a strategy: the initial list, paginated or streamed. */
export function initialState(deps: TransitionDeps): ListingState | StreamingListState {
  return startList('initial', deps);
}

/** A fresh list for `reason`: paginated, or streamed when the strategy says so. */
function startList(reason: RelistReason, deps: TransitionDeps): ListingState | StreamingListState {
  const strategy = deps.initialListStrategy ?? 'list';
  if (strategy === 'list') return { phase: 'Listing', reason, continueToken: undefined };
  return { phase: 'StreamingList', reason, fallback: strategy === 'auto' };
}

/**
 * Whether the server refused a streaming list because it does not serve it: 400 (an unknown
 * parameter), 405, 406, 415, 422 (kube-apiserver without the WatchList feature: "sendInitialEvents
 * is forbidden...") or 501. Not 403/404 (a LIST would fail alike), 410, 429 or 5xx (transient).
 */
export function refusesStreamingList(error: unknown): boolean {
  if (!isApiError(error)) return false;
  return [400, 405, 406, 415, 422, 501].includes(error.status);
}

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
 * 2b. StreamingList: the end bookmark -> Listed(its RV); an error the server answered because it does not
 *    serve streaming lists ({@link refusesStreamingList}), under 'auto' -> Listing (paginated) at once;
 *    any other error (a cut stream, one that ended before the bookmark, 5xx, 429) -> back off, then stream again.
 * 3. Listed: committed -> Watching(list RV).
 * 4. Watching: first, a watch that worked (an event or a bookmark, or open for {@link healthyWatchMs})
 *    resets the error backoff. Then: a clean end (the server's `timeoutSeconds`, a graceful drop) is
 *    no error: resume from the last RV at once; the second and later clean ends in a row that came at
 *    once (no event, under {@link shortWatchMs}) pause {@link instantClosePauseMs} first. Inactive ->
 *    resume at once. 410 -> relist (paginated or streamed, per the strategy) at once (back off first if the watch started right after a list
 *    and saw no event, so a server that keeps answering 410 is not hammered). Any other error ->
 *    back off, then resume from the last RV.
 * 5. BackingOff: elapsed -> the state it was waiting to enter.
 * Every error delay is `backoff.next()`, floored by the error's Retry-After.
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
    case 'StreamingList':
      if (input.type === 'streamEnded') return { phase: 'Listed', reason: state.reason, resourceVersion: input.resourceVersion };
      if (input.type === 'streamFailed') {
        if (state.fallback && refusesStreamingList(input.error)) return { phase: 'Listing', reason: state.reason, continueToken: undefined };
        return backingOff(input.error, state, deps);
      }
      break;
    case 'Listed':
      if (input.type === 'committed') return { phase: 'Watching', resourceVersion: state.resourceVersion, afterList: true, instantCloses: 0 };
      break;
    case 'Watching': {
      if (input.type !== 'watchClosed' && input.type !== 'watchFailed' && input.type !== 'watchInactive') break;
      if (input.events > 0 || input.durationMs >= healthyWatchMs) deps.backoff.reset();
      const resourceVersion = input.resourceVersion || state.resourceVersion;
      const resume: WatchingState = { phase: 'Watching', resourceVersion, afterList: false, instantCloses: 0 };
      if (input.type === 'watchInactive') return resume;
      if (input.type === 'watchClosed') {
        if (input.events > 0 || input.durationMs >= shortWatchMs) return resume;
        const instantCloses = state.instantCloses + 1;
        const next: WatchingState = { ...resume, instantCloses };
        return instantCloses === 1 ? next : { phase: 'BackingOff', reason: 'instantClose', delayMs: instantClosePauseMs, cause: undefined, next };
      }
      if (isGone(input.error)) {
        const relist = startList('expired', deps);
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

function backingOff(cause: unknown, next: ListingState | StreamingListState | WatchingState, deps: TransitionDeps): BackingOffState {
  return { phase: 'BackingOff', reason: 'error', delayMs: Math.max(deps.backoff.next(), retryAfterMs(cause)), cause, next };
}

/** The server's Retry-After (429, 503) in milliseconds, or 0. */
export function retryAfterMs(error: unknown): number {
  if (!isApiError(error)) return 0;
  const seconds = error.retryAfterSeconds;
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 0;
}
