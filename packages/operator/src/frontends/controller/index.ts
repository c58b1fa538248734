// @kubeloop/operator/controller: consul-k8s' `controller` package (Resource, Controller, Backgrounder)
// over the kubeloop core. Named exports only; types exported with `export type`.

export type { Resource, ResourceUpsertFunc, ResourceDeleteFunc, Backgrounder, Event } from './resource.js';
export { newResource, isBackgrounder } from './resource.js';
export type { ControllerOptions } from './resource-controller.js';
export { Controller, DEFAULT_RESOURCE_MAX_RETRIES, DefaultResourceRetryPolicy } from './resource-controller.js';
export type { TestControllerRunOptions } from './test-controller-run.js';
export { testControllerRun } from './test-controller-run.js';
