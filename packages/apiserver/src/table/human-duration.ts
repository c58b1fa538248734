/**
 * Ages as kubectl shows them (`45s`, `3m20s`, `5h`, `2d3h`, `1y20d`): the rules of apimachinery's
 * `duration.HumanDuration`, about two significant figures. The server computes these cells when it
 * builds a Table, as kube-apiserver does; kubectl prints them as they come.
 */

const second = 1000;
const minute = 60 * second;
const hour = 60 * minute;

/** A duration in milliseconds in kubectl's short form. More than 2 s in the future is `<invalid>`. */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / second);
  // Up to two seconds of clock skew reads as "now".
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(ms / minute);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 3 * 60) return `${minutes}m`;
  const hours = Math.trunc(ms / hour);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${days}d` : `${days}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) {
    const d = days % 365;
    return d === 0 ? `${years}y` : `${years}y${d}d`;
  }
  return `${years}y`;
}

const rfc3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * The age of an RFC 3339 timestamp at `now` (ms since the epoch): `<unknown>` when there is none,
 * `<invalid>` when it does not parse.
 */
export function timestampAge(timestamp: unknown, now: number): string {
  if (timestamp === undefined || timestamp === null || timestamp === '') return '<unknown>';
  if (typeof timestamp !== 'string' || !rfc3339.test(timestamp)) return '<invalid>';
  const at = Date.parse(timestamp);
  if (Number.isNaN(at)) return '<invalid>';
  return humanDuration(now - at);
}
