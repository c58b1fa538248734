/** Test support: a Logger that keeps every line, for tests that assert what was logged. */
import type { LogAttributes, Logger } from '../observability/logger.js';

/** One logged line. */
export interface LoggedLine {
  level: 'debug' | 'info' | 'warn' | 'error';
  message: string;
  attributes: LogAttributes | undefined;
}

/** A Logger that records every line in `lines`, in order. */
export interface RecordingLogger extends Logger {
  readonly lines: LoggedLine[];
  /** The lines of one level. */
  at(level: LoggedLine['level']): LoggedLine[];
}

/** A new {@link RecordingLogger}. */
export function recordingLogger(): RecordingLogger {
  const lines: LoggedLine[] = [];
  const log = (level: LoggedLine['level']) => (message: string, attributes?: LogAttributes) => void lines.push({ level, message, attributes });
  return {
    lines,
    at: (level) => lines.filter((line) => line.level === level),
    debug: log('debug'),
    info: log('info'),
    warn: log('warn'),
    error: log('error'),
  };
}
