/**
 * The logging seam of @kubeloop/operator: a structured logger interface small enough to adapt
 * pino, winston or console in a few lines.
 */

/** Structured key/value attributes of a log line. */
export type LogAttributes = Record<string, unknown>;

/** A structured logger (message + attributes), as Go's slog that grafana-app-sdk uses. */
export interface Logger {
  debug(message: string, attributes?: LogAttributes): void;
  info(message: string, attributes?: LogAttributes): void;
  warn(message: string, attributes?: LogAttributes): void;
  error(message: string, attributes?: LogAttributes): void;
}

function text(value: unknown): string {
  if (value instanceof Error) return value.message;
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    // bigint, cycles: a log line must never throw.
    return String(value);
  }
}

/** `time LEVEL message key=value...`; attributes whose value is undefined are left out. */
export function formatLogLine(level: string, message: string, attributes?: LogAttributes, now: Date = new Date()): string {
  let line = `${now.toISOString()} ${level} ${message}`;
  if (attributes !== undefined) {
    for (const key of Object.keys(attributes)) {
      const value = attributes[key];
      if (value === undefined) continue;
      line += ` ${key}=${text(value)}`;
    }
  }
  return line;
}

const format = formatLogLine;

/** Logs info and above to the console as `time LEVEL message key=value...` (undefined attributes left out); debug is dropped. */
export const consoleLogger: Logger = {
  debug: () => {},
  info: (message, attributes) => console.info(format('INFO', message, attributes)),
  warn: (message, attributes) => console.warn(format('WARN', message, attributes)),
  error: (message, attributes) => console.error(format('ERROR', message, attributes)),
};

/** Discards everything (tests, benchmarks). */
export const noopLogger: Logger = {
  debug: () => {},
  info: () => {},
  warn: () => {},
  error: () => {},
};

/**
 * A logger that adds `attributes` to every line of `logger` (slog's `With`); attributes given to a
 * call win over the bound ones. Binding is cheap: nothing is merged until a line is logged.
 */
export function withAttributes(logger: Logger, attributes: LogAttributes): Logger {
  const merge = (extra: LogAttributes | undefined): LogAttributes => (extra === undefined ? attributes : { ...attributes, ...extra });
  return {
    debug: (message, extra) => logger.debug(message, merge(extra)),
    info: (message, extra) => logger.info(message, merge(extra)),
    warn: (message, extra) => logger.warn(message, merge(extra)),
    error: (message, extra) => logger.error(message, merge(extra)),
  };
}
