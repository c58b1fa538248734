// kubeloop (the CLI) public API: every command as a function returning its exit code. Named exports only.
export { runKubeloop } from './run-kubeloop.js';
export { kubeloopVersion } from './version.js';
export { runInit } from './commands/init.js';
export { runGenerate } from './commands/generate.js';
export { runManifests } from './commands/manifests.js';
export { runDev } from './commands/dev.js';
export { ExitCode } from './exit-codes.js';
export { processIo } from './cli-io.js';
export type { CliIo } from './cli-io.js';
export type { Style } from './style.js';
export { CommandFailure, UsageError, isUsageError } from './cli-errors.js';
