// `npm create kubeloop@latest <dir> [flags]` runs this: exactly `kubeloop init <dir> [flags]`.
import { runInit } from 'kubeloop';

process.exitCode = await runInit(process.argv.slice(2));
