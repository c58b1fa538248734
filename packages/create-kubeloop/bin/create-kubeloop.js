#!/usr/bin/env node
// The installed `create-kubeloop` command (what `npm create kubeloop` runs). A committed file rather than
// dist/main.js, for the same reason as kubeloop's own bin: npm links a bin only when its target exists.
import { existsSync } from 'node:fs';

const main = new URL('../dist/main.js', import.meta.url);
if (!existsSync(main)) {
  process.stderr.write('create-kubeloop: not compiled yet: run `npm run build` in the repository first\n');
  process.exit(1);
}
await import(main.href);
