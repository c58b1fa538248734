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

function format(level: string, message: string, attributes?: LogAttributes): string {
  let line = `${new Date().toISOString()} ${level} ${message}`;
  if (attributes !== undefined) {
    for (const key of Object.keys(attributes)) {
      const value = attributes[key];
      line += ` ${key}=${text(value)}`;
    }
  }
  return line;
}

/** Logs info and above to the console as `time LEVEL message key=value...`; debug is dropped. */
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
