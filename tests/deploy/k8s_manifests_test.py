#!/usr/bin/env python3
"""Renders deploy/k8s with `kubectl kustomize` and checks the objects as a
cluster would get them: a pod per site with hugepages, memory, IPC_LOCK and
the node-local memif folder; the token only in a Secret; every port named;
probes on every container, given the TLS files of a mounted Secret; Services that reach named ports, with Prometheus
annotations on a metrics port; every ConfigMap and Secret a pod names is
rendered; and each site's pod config passes nfv-pod --check-config.

  k8s_manifests_test.py DEPLOY_K8S_DIR     ($KUBECTL, $NFV_POD optional)
"""
import base64
import os
import shutil
import subprocess
import sys
import tempfile

import yaml

failures = []


def check(ok, message):
    if not ok:
        failures.append(message)
    return ok


def render(kustomize_dir):
    kubectl = os.environ.get("KUBECTL") or shutil.which("kubectl")
    if not kubectl:
        sys.exit("FAIL: kubectl not found: install Debian's kubernetes-client (./nfv setup does) to render deploy/k8s")
    run = subprocess.run([kubectl, "kustomize", kustomize_dir], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"FAIL: kubectl kustomize {kustomize_dir} exited {run.returncode}:\n{run.stderr}")
    return [d for d in yaml.safe_load_all(run.stdout) if d]


def named(objects, kind):
    return {o["metadata"]["name"]: o for o in objects if o["kind"] == kind}


def quantity_bytes(text):
    units = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}
    text = str(text)
    for suffix, factor in units.items():
        if text.endswith(suffix):
            return float(text[: -len(suffix)]) * factor
    return float(text)


def check_pod_site(name, deployment, config_maps):
    spec = deployment["spec"]["template"]["spec"]
    volumes = {v["name"]: v for v in spec.get("volumes", [])}
    for c in spec["containers"]:
        where = f"Deployment {name} container {c['name']}"
        res = c.get("resources", {})
        requests, limits = res.get("requests", {}), res.get("limits", {})
        if check("hugepages-2Mi" in limits, f"{where}: no hugepages-2Mi limit"):
            check(requests.get("hugepages-2Mi") == limits["hugepages-2Mi"],
                  f"{where}: hugepages-2Mi request {requests.get('hugepages-2Mi')} != limit {limits['hugepages-2Mi']}"
                  " (Kubernetes needs them equal)")
            check(quantity_bytes(limits["hugepages-2Mi"]) >= 256 * 2**20,
                  f"{where}: hugepages-2Mi {limits['hugepages-2Mi']} is below 256 MiB (a pod's mempools take 80-300 MiB)")
        check("memory" in requests and "memory" in limits, f"{where}: memory request and limit are both needed")
        caps = c.get("securityContext", {}).get("capabilities", {}).get("add", [])
        check("IPC_LOCK" in caps, f"{where}: IPC_LOCK is not added (EAL locks its hugepages)")
        mounts = {m["mountPath"]: m["name"] for m in c.get("volumeMounts", [])}
        huge = volumes.get(mounts.get("/dev/hugepages"), {})
        check(str(huge.get("emptyDir", {}).get("medium", "")).startswith("HugePages"),
              f"{where}: /dev/hugepages is not an emptyDir of medium HugePages")
        memif = [v for m, v in mounts.items() if m.startswith("/run/nfv/memif")]
        check(memif and "hostPath" in volumes.get(memif[0], {}),
              f"{where}: the memif socket folder /run/nfv/memif is not on a node-local (hostPath) volume")
        probes = [c.get("readinessProbe", {}), c.get("livenessProbe", {})]
        check(all("health" in p.get("exec", {}).get("command", []) for p in probes),
              f"{where}: readiness and liveness must ask the pod's health (nfvctl health)")
    # The config the container starts from: the site's file then the shared chains.
    files = [cm_file for v in volumes.values() if "configMap" in v
             for cm_file in config_maps.get(v["configMap"]["name"], {}).get("data", {}).values()]
    return files


def main():
    objects = render(sys.argv[1])
    deployments = named(objects, "Deployment")
    services = named(objects, "Service")
    config_maps = named(objects, "ConfigMap")
    secrets = named(objects, "Secret")

    # The token: in the Secret, never in a ConfigMap (configs say @NFV_TOKEN@).
    tokens = [base64.b64decode(v).decode() for s in secrets.values() for k, v in s.get("data", {}).items() if "token" in k]
    check(tokens, "no Secret holds a control token")
    for cm_name, cm in config_maps.items():
        for file_name, text in cm.get("data", {}).items():
            for token in tokens:
                check(token not in text, f"ConfigMap {cm_name} ({file_name}) holds the Secret's token")
            for doc in yaml.safe_load_all(text):
                stack = [doc]
                while stack:
                    node = stack.pop()
                    if isinstance(node, dict):
                        for key, value in node.items():
                            if key == "token":
                                check(value == "@NFV_TOKEN@", f"ConfigMap {cm_name} ({file_name}) has token: {value!r};"
                                      " it must be @NFV_TOKEN@ (filled in from the Secret)")
                            stack.append(value)
                    elif isinstance(node, list):
                        stack.extend(node)

    # A pod per site, each with the hugepages, IPC_LOCK, memif folder and health probes.
    pods = {n: d for n, d in deployments.items() if n.startswith("nfv-pod-")}
    check(len(pods) == 3, f"expected one nfv-pod Deployment per site (3), got {sorted(pods)}")
    pod_configs = {n: check_pod_site(n, d, config_maps) for n, d in pods.items()}
    check("nfv-scaler" in deployments, "no nfv-scaler Deployment")

    # Every container: probes, named ports; every ConfigMap and Secret it names is rendered.
    container_ports = {}
    for name, d in deployments.items():
        spec = d["spec"]["template"]["spec"]
        for c in spec["containers"]:
            where = f"Deployment {name} container {c['name']}"
            check("readinessProbe" in c and "livenessProbe" in c, f"{where}: readiness and liveness probes are both needed")
            for p in c.get("ports", []):
                check(p.get("name"), f"{where}: port {p.get('containerPort')} has no name")
                container_ports.setdefault(name, {})[p.get("name")] = p["containerPort"]
            # The control API listens off loopback, so over mutual TLS: the
            # files from a Secret, and the probes' nfvctl told where they are.
            secret_mounts = {m["mountPath"] for m in c.get("volumeMounts", [])
                             for v in spec.get("volumes", []) if v["name"] == m["name"] and "secret" in v}
            tls_env = {e["name"]: e.get("value", "") for e in c.get("env", []) if e["name"].startswith("NFV_TLS_")}
            check(sorted(tls_env) == ["NFV_TLS_CA", "NFV_TLS_CERT", "NFV_TLS_KEY"],
                  f"{where}: the probes' nfvctl needs NFV_TLS_CERT, NFV_TLS_KEY and NFV_TLS_CA (the control API speaks TLS)")
            for env_name, path in tls_env.items():
                check(any(path.startswith(m + "/") for m in secret_mounts),
                      f"{where}: {env_name}={path} is not in a mounted Secret")
            for e in c.get("env", []):
                ref = e.get("valueFrom", {}).get("secretKeyRef")
                if ref:
                    check(ref["name"] in secrets and ref["key"] in secrets[ref["name"]].get("data", {}),
                          f"{where}: env {e['name']} names Secret {ref['name']} key {ref['key']}, which is not rendered")
        for v in spec.get("volumes", []):
            if "configMap" in v:
                check(v["configMap"]["name"] in config_maps,
                      f"Deployment {name}: volume {v['name']} names ConfigMap {v['configMap']['name']}, which is not rendered")

    # Services: named ports that reach a named container port of the pods they select;
    # Prometheus scrapes a port named metrics.
    for name, s in services.items():
        selector = s["spec"].get("selector", {})
        targets = [n for n, d in deployments.items()
                   if selector and selector.items() <= d["spec"]["template"]["metadata"].get("labels", {}).items()]
        check(len(targets) == 1, f"Service {name} selects {targets}, expected one Deployment")
        ports = {p.get("name"): p for p in s["spec"]["ports"]}
        for p in s["spec"]["ports"]:
            check(p.get("name"), f"Service {name}: port {p['port']} has no name")
            if targets:
                check(p.get("targetPort") in container_ports.get(targets[0], {}),
                      f"Service {name}: port {p.get('name')} targets {p.get('targetPort')}, not a named port of {targets[0]}")
        notes = s["metadata"].get("annotations", {})
        if check(notes.get("prometheus.io/scrape") == "true", f"Service {name}: no prometheus.io/scrape annotation"):
            check("metrics" in ports and str(ports["metrics"]["port"]) == notes.get("prometheus.io/port"),
                  f"Service {name}: prometheus.io/port {notes.get('prometheus.io/port')} is not its port named metrics")

    # Each site's pod config as the container assembles it is a valid pod config.
    nfv_pod = os.environ.get("NFV_POD")
    if nfv_pod:
        with tempfile.TemporaryDirectory() as tmp:
            for name, files in pod_configs.items():
                site_first = sorted(files, key=lambda text: "hosted_sites" not in text)
                path = os.path.join(tmp, name + ".yaml")
                with open(path, "w") as f:
                    f.write("\n".join(site_first).replace("@NFV_TOKEN@", "probe-token"))
                run = subprocess.run([nfv_pod, "--", "--config", path, "--check-config"], capture_output=True, text=True)
                check(run.returncode == 0, f"{name}: its pod config fails nfv-pod --check-config:\n{run.stdout}{run.stderr}")

    kinds = sorted({o["kind"] for o in objects})
    if failures:
        print("FAIL: the rendered manifests:\n  " + "\n  ".join(failures))
        sys.exit(1)
    print(f"ok: {len(objects)} objects ({', '.join(kinds)}); {len(pods)} site pods with hugepages, IPC_LOCK, memif folder and"
          f" health probes; {len(services)} Services with named ports and scrape annotations; the token only in a Secret")


if __name__ == "__main__":
    main()
