/**
 * The operator's process as `kubeloop dev` starts it ahead of time (a warm spare): it loads the project's
 * dependencies (`node runner.js <preload> <main> [args...]` imports `<preload>`, a module of the build
 * that imports them), says `warm`, and waits for `go`; then it runs `<main>` with `args` as if started as
 * `node <main> [args...]`. A restart then costs the user's own modules only, not Node's start-up and the
 * libraries'. Without `go` it exits when `kubeloop dev` goes away (the IPC channel closes).
 */
import { pathToFileURL } from 'node:url';

const [preload, main, ...args] = process.argv.slice(2);

async function runner(): Promise<void> {
  if (preload === undefined || main === undefined) throw new Error('usage: operator-runner <preload> <main> [args...]');
  try {
    await import(pathToFileURL(preload).href);
  } catch {
    // A dependency that cannot be preloaded is simply loaded by main, later.
  }
  const exitIfOrphaned = (): void => process.exit(0);
  process.once('disconnect', exitIfOrphaned);
  process.once('message', (message) => {
    if (message !== 'go') return;
    process.off('disconnect', exitIfOrphaned);
    process.argv = [process.argv[0] ?? process.execPath, main, ...args];
    const loading = import(pathToFileURL(main).href);
    // Not from inside the message handler (Node then fails on its own bookkeeping): once it returned.
    setImmediate(() => process.disconnect());
    loading.catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
  });
  process.send?.('warm');
}

void runner();
