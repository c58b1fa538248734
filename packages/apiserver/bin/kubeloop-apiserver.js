#!/usr/bin/env node
// The installed `kubeloop-apiserver` command. It is a committed file rather than dist/cli.js because npm links
// a workspace's bin only when its target exists at install time, which dist/ does not after `npm ci`;
// being here, it can also say what to do when the package has not been compiled yet.
import { existsSync } from 'node:fs';

const cli = new URL('../dist/cli.js', import.meta.url);
if (!existsSync(cli)) {
  process.stderr.write('kubeloop-apiserver: not compiled yet: run `npm run build` (or `npx tsc -b packages/apiserver`) in the repository first\n');
  process.exit(1);
}
await import(cli.href);
