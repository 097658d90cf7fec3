#!/usr/bin/env python3
"""Adds Kueue's v1beta1 version (served, not stored) and the conversion webhook to
deploy/crds/*.yaml, taking each v1beta1 schema from Kueue's own CRDs (../shared/kueue-crds
by default). The Workload's v1beta1 pod template schema is replaced by the one our
v1beta2 version declares (the rest of the pod template preserved, as there), and
selectableFields is left out (Kubernetes 1.30), as for v1beta2. Idempotent: a CRD that
already serves v1beta1 is left alone.

    scripts/crds-add-v1beta1.py [KUEUE_CRDS_DIR]
"""
import pathlib
import sys

import yaml

ROOT = pathlib.Path(__file__).resolve().parent.parent
KUEUE = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT.parent / "shared" / "kueue-crds"

CONVERSION = """\
  # v1beta1 is converted to and from the storage version by kueuepp's webhook server
  # (kube/conversion: Kueue's mapping; what one version cannot say is kept in the
  # kueuepp.io/conversion-stash annotation). kueuepp sets the caBundle when it starts.
  conversion:
    strategy: Webhook
    webhook:
      conversionReviewVersions: [v1]
      clientConfig:
        service:
          name: kueuepp-webhook-service
          namespace: kueuepp-system
          path: /convert
          port: 443
"""


def version(crd, name):
    return next(v for v in crd["spec"]["versions"] if v["name"] == name)


def main():
    for path in sorted((ROOT / "deploy" / "crds").glob("*.yaml")):
        text = path.read_text()
        ours = yaml.safe_load(text)
        if any(v["name"] == "v1beta1" for v in ours["spec"]["versions"]):
            continue
        plural = ours["spec"]["names"]["plural"]
        kueue = yaml.safe_load((KUEUE / f"kueue.x-k8s.io_{plural}.yaml").read_text())
        v1beta1 = version(kueue, "v1beta1")
        v1beta1.pop("selectableFields", None)
        v1beta1["served"] = True
        v1beta1["storage"] = False
        if plural == "workloads":
            template = version(ours, "v1beta2")["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"][
                "podSets"]["items"]["properties"]["template"]
            v1beta1["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["podSets"]["items"][
                "properties"]["template"] = template
        block = yaml.safe_dump([v1beta1], sort_keys=False, default_flow_style=False, width=120)
        block = "".join("  " + line if line.strip() else line for line in block.splitlines(keepends=True))
        header = ("  # v1beta1: Kueue's own schema (config/components/crd/bases), served for Kueue's users'\n"
                  "  # manifests and tools; objects are stored as v1beta2.\n")
        marker = "  versions:\n"
        assert text.count(marker) == 1, path
        text = text.replace(marker, CONVERSION + marker + header + block, 1)
        path.write_text(text)
        print(f"{path.relative_to(ROOT)}: v1beta1 added")


if __name__ == "__main__":
    main()
