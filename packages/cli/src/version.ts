/** This package's version, from its package.json (the version of every kubeloop package it is released with). */
import { readFileSync } from 'node:fs';

export function kubeloopVersion(): string {
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
  return manifest.version;
}
