/**
 * The operator server's `/status` page: plain server-rendered HTML, no script and no external asset.
 * Every value from the cluster or a handler (names, error messages) goes through `escapeHtml`.
 */
import type { ControllerStatus, OperatorStatus } from './controller-status.js';
import type { HandlerCall, ObjectCalls } from './handler-call-log.js';
import { escapeHtml } from './escape-html.js';
import { formatAgo, formatCount, formatDuration } from './status-format.js';

/** Options of {@link renderStatusPage}. */
export interface StatusPageOptions {
  /** Shows only the objects whose `kind/namespace/name` contains this text. Default: all. */
  filter?: string | undefined;
  /** Objects shown per controller, most recently called first. Default: 100. */
  maxObjects?: number | undefined;
  /** Reloads the page every this many seconds (a meta refresh); 0 = never. Default: 0. */
  refreshSeconds?: number | undefined;
}

const STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222;background:#fff}
h1{font-size:1.4em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;margin:.5em 0 1em}th,td{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f3f3f3}tr.object th{background:#e8eef7}td.error{color:#a00;white-space:pre-wrap;max-width:50em}
.ok{color:#070}.bad{color:#a00;font-weight:bold}.muted{color:#777}`;

export function renderStatusPage(status: OperatorStatus, options: StatusPageOptions = {}): string {
  const refresh = options.refreshSeconds ?? 0;
  const head = [
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    refresh > 0 ? `<meta http-equiv="refresh" content="${Math.floor(refresh)}">` : '',
    `<title>Operator status</title><style>${STYLE}</style></head><body>`,
    '<h1>Operator status</h1>',
    '<p class="muted">Also: <a href="metrics">/metrics</a> · <a href="healthz?verbose">/healthz</a> · <a href="readyz?verbose">/readyz</a> · <a href="status.json">/status.json</a></p>',
  ];
  const body = status.controllers.length === 0 ? ['<p>No controller reports a status.</p>'] : status.controllers.map((c) => controllerSection(c, options));
  return [...head, ...body, '</body></html>'].join('\n');
}

function controllerSection(c: ControllerStatus, options: StatusPageOptions): string {
  const { queue, totals } = c;
  const parts = [
    `<section class="controller"><h2>Controller ${escapeHtml(c.name)} <span class="${c.running ? 'ok' : 'bad'}">${c.running ? 'running' : 'not running'}</span></h2>`,
    `<p>Handler calls: ${totals.calls}, failed: <span class="${totals.errors > 0 ? 'bad' : 'ok'}">${totals.errors}</span>.`,
    totals.lastError === undefined
      ? '</p>'
      : ` Last error (${formatAgo(totals.lastError.at, c.now)}) on ${escapeHtml(`${totals.lastError.kind} ${totals.lastError.key}`)}: <span class="bad">${escapeHtml(totals.lastError.message)}</span></p>`,
    '<table class="informers"><caption>Informers</caption><tr><th>Kind</th><th>Role</th><th>Synced</th><th>Objects</th><th>Last event</th><th>Watch connects</th><th>Restarts</th></tr>',
    ...c.informers.map(
      (i) =>
        `<tr><td>${escapeHtml(i.kind)}</td><td>${i.role}</td><td class="${i.synced ? 'ok' : 'bad'}">${i.synced ? 'yes' : 'no'}</td><td>${i.objects}</td><td>${formatAgo(i.lastEventAt, c.now)}</td><td>${formatCount(i.watchConnects)}</td><td>${formatCount(i.restarts)}</td></tr>`,
    ),
    '</table>',
    '<table class="queue"><caption>Queue</caption><tr><th>Queued</th><th>Running</th><th>Retries waiting</th><th>Longest waiting</th></tr>',
    `<tr><td>${queue.depth}</td><td>${queue.inFlight}</td><td>${queue.pendingRetries}</td><td>${
      queue.longestWaiting === undefined ? '-' : `${escapeHtml(`${queue.longestWaiting.kind} ${queue.longestWaiting.key}`)}, ${formatDuration(queue.longestWaiting.waitingMs)}`
    }</td></tr></table>`,
    objectsTable(c, options),
    '</section>',
  ];
  return parts.join('\n');
}

function objectsTable(c: ControllerStatus, options: StatusPageOptions): string {
  const filter = options.filter ?? '';
  const matching = filter === '' ? c.objects : c.objects.filter((o) => `${o.kind}/${o.key}`.includes(filter));
  const shown = matching.slice(0, options.maxObjects ?? 100);
  const caption = `Recent handler calls: ${shown.length} of ${matching.length} object${matching.length === 1 ? '' : 's'}${filter === '' ? '' : ` matching “${escapeHtml(filter)}”`}, newest first`;
  if (shown.length === 0) return `<p>${caption}.</p>`;
  const rows = shown.flatMap((o) => objectRows(o, c.now));
  return [
    `<table class="calls"><caption>${caption}</caption>`,
    '<tr><th>When</th><th>Handler</th><th>Action</th><th>Attempt</th><th>Result</th><th>Duration</th><th>Error</th><th>Retry</th></tr>',
    ...rows,
    '</table>',
  ].join('\n');
}

function objectRows(o: ObjectCalls, now: number): string[] {
  const id = escapeHtml(`${o.kind}/${o.key}`);
  const latest = o.calls[0];
  const summary = latest === undefined ? '' : ` — last call: <span class="${latest.result === 'error' ? 'bad' : 'ok'}">${latest.result}</span>`;
  return [`<tr class="object" data-object="${id}"><th colspan="8">${escapeHtml(o.kind)} ${escapeHtml(o.key)}${summary}</th></tr>`, ...o.calls.map((call) => callRow(id, call, now))];
}

function callRow(id: string, call: HandlerCall, now: number): string {
  const result = `<td class="${call.result === 'error' ? 'bad' : 'ok'}">${call.result}</td>`;
  const retry = call.retryInMs === undefined ? (call.result === 'error' ? 'not retried' : '-') : `${call.result === 'requeue' ? 'requeue' : 'retry'} in ${formatDuration(call.retryInMs)}`;
  return `<tr class="call" data-object="${id}"><td>${formatAgo(call.at, now)}</td><td>${call.handler}</td><td>${escapeHtml(call.action)}</td><td>${call.attempt}</td>${result}<td>${formatDuration(call.durationMs)}</td><td class="error">${escapeHtml(call.error ?? '')}</td><td>${retry}</td></tr>`;
}
