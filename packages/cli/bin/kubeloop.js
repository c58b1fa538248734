#!/usr/bin/env node
// The installed `kubeloop` command. A committed file rather than dist/main.js: npm links a workspace's bin only
// when its target exists at install time, which dist/ does not after `npm ci`; being here, it can also say what
// to do when the package has not been compiled yet.
import { existsSync } from 'node:fs';

const main = new URL('../dist/main.js', import.meta.url);
if (!existsSync(main)) {
  process.stderr.write('kubeloop: not compiled yet: run `npm run build` (or `npx tsc -b packages/cli`) in the repository first\n');
  process.exit(1);
}
await import(main.href);
