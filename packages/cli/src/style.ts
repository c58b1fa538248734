/** Colour for terminals only: plain text when the stream is not a TTY, when NO_COLOR is set, or TERM=dumb. */

/** Text styles; each returns its input unchanged when colour is off. */
export interface Style {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
}

/** Whether to colour what goes to `stream`: a terminal, without `NO_COLOR` (https://no-color.org) and not `TERM=dumb`. */
export function colourWanted(stream: { isTTY?: boolean | undefined }, env: NodeJS.ProcessEnv): boolean {
  return stream.isTTY === true && (env['NO_COLOR'] ?? '') === '' && env['TERM'] !== 'dumb';
}

const plain = (text: string): string => text;

function sgr(open: number, close: number): (text: string) => string {
  return (text) => `\u001b[${open}m${text}\u001b[${close}m`;
}

/** ANSI styles when `enabled`, identity functions otherwise. */
export function createStyle(enabled: boolean): Style {
  if (!enabled) return { bold: plain, dim: plain, red: plain, green: plain, yellow: plain };
  return { bold: sgr(1, 22), dim: sgr(2, 22), red: sgr(31, 39), green: sgr(32, 39), yellow: sgr(33, 39) };
}
