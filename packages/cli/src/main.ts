// The `kubeloop` executable; everything else lives in run-kubeloop.ts so tests can call it in-process.
import { runKubeloop } from './run-kubeloop.js';

process.exitCode = await runKubeloop(process.argv.slice(2));
