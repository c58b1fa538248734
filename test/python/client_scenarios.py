"""The official Python Kubernetes client (Debian's python3-kubernetes) against the embedded API
server. Each scenario is a function; `python3 client_scenarios.py KUBECONFIG SCENARIO` runs one
and prints `ok SCENARIO` when every check passed (an AssertionError or API error exits non-zero).
Called by test/src/python-client.test.ts."""

import sys
import threading

from kubernetes import client, config, utils, watch
from kubernetes.client.rest import ApiException

NS = "default"


def crud(api_client):
    core = client.CoreV1Api(api_client)
    body = client.V1ConfigMap(metadata=client.V1ObjectMeta(name="py-cm", labels={"from": "python"}), data={"a": "1"})
    created = core.create_namespaced_config_map(NS, body)
    assert created.metadata.uid and created.metadata.resource_version, created
    got = core.read_namespaced_config_map("py-cm", NS)
    assert got.data == {"a": "1"}, got.data
    got.data["b"] = "2"
    replaced = core.replace_namespaced_config_map("py-cm", NS, got)
    assert replaced.data == {"a": "1", "b": "2"}, replaced.data
    listed = core.list_namespaced_config_map(NS, label_selector="from=python")
    assert [i.metadata.name for i in listed.items] == ["py-cm"], listed.items
    try:
        core.replace_namespaced_config_map("py-cm", NS, got)  # stale resourceVersion
        raise AssertionError("a stale update must fail")
    except ApiException as err:
        assert err.status == 409, err.status
    core.delete_namespaced_config_map("py-cm", NS)
    try:
        core.read_namespaced_config_map("py-cm", NS)
        raise AssertionError("the ConfigMap must be gone")
    except ApiException as err:
        assert err.status == 404, err.status


def watching(api_client):
    core = client.CoreV1Api(api_client)
    start = core.list_namespaced_config_map(NS).metadata.resource_version
    seen = []

    def write():
        core.create_namespaced_config_map(NS, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="py-watched"), data={"x": "1"}))
        core.patch_namespaced_config_map("py-watched", NS, {"data": {"x": "2"}})
        core.delete_namespaced_config_map("py-watched", NS)

    w = watch.Watch()
    writer = threading.Timer(0.2, write)
    writer.start()
    # The client sends watch=True and allowWatchBookmarks=True: the server must read them as Go does.
    for event in w.stream(core.list_namespaced_config_map, NS, resource_version=start, allow_watch_bookmarks=True, timeout_seconds=10):
        if event["type"] == "BOOKMARK":
            continue
        seen.append((event["type"], event["object"].metadata.name))
        if event["type"] == "DELETED":
            w.stop()
    writer.join()
    assert seen == [("ADDED", "py-watched"), ("MODIFIED", "py-watched"), ("DELETED", "py-watched")], seen


def patching(api_client):
    core = client.CoreV1Api(api_client)
    core.create_namespaced_config_map(NS, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="py-patch"), data={"a": "1"}))
    # The client sends a dict body as a strategic merge patch (JSON patch for a list body).
    merged = core.patch_namespaced_config_map("py-patch", NS, {"data": {"b": "2"}})
    assert merged.data == {"a": "1", "b": "2"}, merged.data
    json_patched = core.patch_namespaced_config_map("py-patch", NS, [{"op": "remove", "path": "/data/a"}])
    assert json_patched.data == {"b": "2"}, json_patched.data
    core.delete_namespaced_config_map("py-patch", NS)


def custom_objects(api_client):
    ext = client.ApiextensionsV1Api(api_client)
    crd = {
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "gadgets.example.org"},
        "spec": {
            "group": "example.org",
            "scope": "Namespaced",
            "names": {"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
            "versions": [{
                "name": "v1", "served": True, "storage": True,
                "subresources": {"status": {}},
                "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                    "spec": {"type": "object", "properties": {"size": {"type": "integer"}}},
                    "status": {"type": "object", "properties": {"phase": {"type": "string"}}},
                }}},
            }],
        },
    }
    ext.create_custom_resource_definition(crd)
    custom = client.CustomObjectsApi(api_client)
    gadget = {"apiVersion": "example.org/v1", "kind": "Gadget", "metadata": {"name": "g1"}, "spec": {"size": 1}}
    created = custom.create_namespaced_custom_object("example.org", "v1", NS, "gadgets", gadget)
    assert created["metadata"]["generation"] == 1, created
    patched = custom.patch_namespaced_custom_object("example.org", "v1", NS, "gadgets", "g1", {"spec": {"size": 2}})
    assert patched["spec"]["size"] == 2 and patched["metadata"]["generation"] == 2, patched
    status = custom.patch_namespaced_custom_object_status("example.org", "v1", NS, "gadgets", "g1", {"status": {"phase": "Ready"}})
    assert status["status"] == {"phase": "Ready"}, status
    listed = custom.list_namespaced_custom_object("example.org", "v1", NS, "gadgets")
    assert [i["metadata"]["name"] for i in listed["items"]] == ["g1"], listed
    custom.delete_namespaced_custom_object("example.org", "v1", NS, "gadgets", "g1")
    ext.delete_custom_resource_definition("gadgets.example.org")


def deployment_and_service(api_client):
    apps = client.AppsV1Api(api_client)
    core = client.CoreV1Api(api_client)
    labels = {"app": "py-web"}
    deployment = client.V1Deployment(
        metadata=client.V1ObjectMeta(name="py-web"),
        spec=client.V1DeploymentSpec(
            replicas=2,
            selector=client.V1LabelSelector(match_labels=labels),
            template=client.V1PodTemplateSpec(
                metadata=client.V1ObjectMeta(labels=labels),
                spec=client.V1PodSpec(containers=[client.V1Container(name="web", image="nginx:1.27", ports=[client.V1ContainerPort(container_port=8080)])]),
            ),
        ),
    )
    created = apps.create_namespaced_deployment(NS, deployment)
    assert created.spec.strategy.type == "RollingUpdate", created.spec.strategy
    assert created.spec.template.spec.containers[0].image_pull_policy == "IfNotPresent"
    owner = client.V1OwnerReference(api_version="apps/v1", kind="Deployment", name="py-web", uid=created.metadata.uid, controller=True)
    service = client.V1Service(
        metadata=client.V1ObjectMeta(name="py-web", owner_references=[owner]),
        spec=client.V1ServiceSpec(selector=labels, ports=[client.V1ServicePort(port=80, target_port=8080)]),
    )
    svc = core.create_namespaced_service(NS, service)
    assert svc.spec.cluster_ip and svc.spec.type == "ClusterIP", svc.spec
    scale = apps.patch_namespaced_deployment_scale("py-web", NS, {"spec": {"replicas": 4}})
    assert scale.spec.replicas == 4, scale
    assert apps.read_namespaced_deployment_scale("py-web", NS).status.selector == "app=py-web"
    status = {"status": {"observedGeneration": 2, "replicas": 4, "readyReplicas": 4, "availableReplicas": 4, "updatedReplicas": 4}}
    updated = apps.patch_namespaced_deployment_status("py-web", NS, status)
    assert updated.status.ready_replicas == 4, updated.status
    bad = client.V1Deployment(metadata=client.V1ObjectMeta(name="py-bad"), spec=client.V1DeploymentSpec(
        selector=client.V1LabelSelector(match_labels={"app": "x"}),
        template=client.V1PodTemplateSpec(metadata=client.V1ObjectMeta(labels={"app": "y"}), spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="busybox")]))))
    try:
        apps.create_namespaced_deployment(NS, bad)
        raise AssertionError("a selector that does not match the template must be refused")
    except ApiException as err:
        assert err.status == 422, err.status
    # Deleting the owner (background propagation) garbage-collects the owned Service.
    apps.delete_namespaced_deployment("py-web", NS)
    import time
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            core.read_namespaced_service("py-web", NS)
        except ApiException as err:
            assert err.status == 404, err.status
            return
        time.sleep(0.02)
    raise AssertionError("the owned Service was not collected")


def apiservice_from_yaml(api_client):
    """utils.create_from_yaml creates an APIService (stored and served; nothing is aggregated)."""
    document = {
        "apiVersion": "apiregistration.k8s.io/v1",
        "kind": "APIService",
        "metadata": {"name": "v1beta1.metrics.example.com"},
        "spec": {
            "group": "metrics.example.com",
            "version": "v1beta1",
            "groupPriorityMinimum": 100,
            "versionPriority": 100,
            "service": {"namespace": "default", "name": "metrics", "port": 443},
        },
    }
    created = utils.create_from_dict(api_client, document)
    assert created[0].metadata.name == "v1beta1.metrics.example.com", created
    registration = client.ApiregistrationV1Api(api_client)
    read = registration.read_api_service("v1beta1.metrics.example.com")
    assert read.spec.service.name == "metrics", read
    names = [item.metadata.name for item in registration.list_api_service().items]
    assert names == ["v1beta1.metrics.example.com"], names
    registration.delete_api_service("v1beta1.metrics.example.com")


def pod_running(api_client):
    """With the cluster simulation: a Pod is scheduled and runs, as a user's code waits for it."""
    core = client.CoreV1Api(api_client)
    container = client.V1Container(name="app", image="nginx:1.27")
    core.create_namespaced_pod(NS, client.V1Pod(metadata=client.V1ObjectMeta(name="py-pod"), spec=client.V1PodSpec(containers=[container])))
    w = watch.Watch()
    running = None
    for event in w.stream(core.list_namespaced_pod, NS, field_selector="metadata.name=py-pod", timeout_seconds=20):
        pod = event["object"]
        ready = [c.status for c in (pod.status.conditions or []) if c.type == "Ready"]
        if pod.status.phase == "Running" and ready == ["True"]:
            running = pod
            w.stop()
    assert running is not None, "the Pod never ran"
    assert running.spec.node_name.startswith("node-"), running.spec.node_name
    assert running.status.pod_ip.startswith("10.244."), running.status.pod_ip
    assert running.status.container_statuses[0].ready and running.status.container_statuses[0].started
    nodes = core.list_node().items
    assert [n.metadata.name for n in nodes] == ["node-1", "node-2", "node-3"], nodes
    core.delete_namespaced_pod("py-pod", NS, grace_period_seconds=0)
    try:
        core.read_namespaced_pod("py-pod", NS)
        raise AssertionError("a delete with grace period 0 removes the Pod at once")
    except ApiException as err:
        assert err.status == 404, err.status


def deployment_available(api_client):
    """With the cluster simulation: a Deployment's Pods run and it becomes Available, as a user's code waits for it."""
    apps = client.AppsV1Api(api_client)
    labels = {"app": "py-web"}
    template = client.V1PodTemplateSpec(
        metadata=client.V1ObjectMeta(labels=labels),
        spec=client.V1PodSpec(containers=[client.V1Container(name="web", image="nginx:1.27")]),
    )
    spec = client.V1DeploymentSpec(replicas=2, selector=client.V1LabelSelector(match_labels=labels), template=template)
    apps.create_namespaced_deployment(NS, client.V1Deployment(metadata=client.V1ObjectMeta(name="py-web"), spec=spec))
    w = watch.Watch()
    available = None
    for event in w.stream(apps.list_namespaced_deployment, NS, field_selector="metadata.name=py-web", timeout_seconds=20):
        deployment = event["object"]
        conditions = {c.type: c.status for c in (deployment.status.conditions or [])}
        if conditions.get("Available") == "True" and deployment.status.available_replicas == 2:
            available = deployment
            w.stop()
    assert available is not None, "the Deployment never became available"
    assert available.status.updated_replicas == 2 and available.status.ready_replicas == 2, available.status
    replica_sets = apps.list_namespaced_replica_set(NS, label_selector="app=py-web").items
    assert len(replica_sets) == 1 and replica_sets[0].metadata.owner_references[0].name == "py-web", replica_sets
    apps.delete_namespaced_deployment("py-web", NS)


SCENARIOS = {
    "apiservice-yaml": apiservice_from_yaml,
    "deployment-available": deployment_available,
    "pod-running": pod_running,
    "crud": crud,
    "watch": watching,
    "patch": patching,
    "custom-objects": custom_objects,
    "deployment-service": deployment_and_service,
}

if __name__ == "__main__":
    kubeconfig, scenario = sys.argv[1], sys.argv[2]
    configuration = client.Configuration()
    config.load_kube_config(config_file=kubeconfig, client_configuration=configuration)
    with client.ApiClient(configuration) as api:
        SCENARIOS[scenario](api)
    print(f"ok {scenario}")
