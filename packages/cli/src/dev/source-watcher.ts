/**
 * Watches the project's folders (sources, kind schemas, CRDs) and reports a batch of changed files once
 * saves settle: editors write a file in several steps (truncate, write, rename), one batch per save.
 */
import { watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import { join } from 'node:path';

/** Files changed together, relative to the project (e.g. `src/operator.ts`). */
export type ChangeBatch = readonly string[];

/** How long after the last change a batch is reported. */
const SETTLE_MS = 30;

export class SourceWatcher {
  private readonly watchers: FSWatcher[] = [];
  private pending = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  /**
   * @param folders folders relative to `root`; missing ones are skipped.
   * @param onChange called with each batch.
   */
  constructor(
    private readonly root: string,
    private readonly folders: readonly string[],
    private readonly onChange: (batch: ChangeBatch) => void,
  ) {}

  start(): void {
    for (const folder of this.folders) {
      try {
        const watcher = watch(join(this.root, folder), { recursive: true }, (_event, name) => this.changed(join(folder, String(name ?? ''))));
        watcher.on('error', () => undefined);
        this.watchers.push(watcher);
      } catch {
        // A folder the project does not have.
      }
    }
  }

  stop(): void {
    clearTimeout(this.timer);
    for (const watcher of this.watchers.splice(0)) watcher.close();
  }

  private changed(path: string): void {
    // Editors' swap and backup files are not sources.
    if (/(^|\/)\.|~$|\.swp$/.test(path)) return;
    this.pending.add(path);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      const batch = [...this.pending].sort();
      this.pending = new Set();
      this.onChange(batch);
    }, SETTLE_MS);
  }
}
