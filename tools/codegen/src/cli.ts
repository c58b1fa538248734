#!/usr/bin/env node
// The `kubeloop-codegen` executable; everything else lives in run-cli.ts so tests can call it in-process.
import { runCodegenCli } from './run-cli.js';

process.exitCode = await runCodegenCli(process.argv.slice(2));
