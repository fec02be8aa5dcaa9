#!/usr/bin/env bash
# Lints the Kubernetes manifests of deploy/ against Kubernetes' own OpenAPI schemas, offline
# (kubernetes-validate bundles them), strictly: an unknown or misspelt field is an error.
set -euo pipefail
cd "$(dirname "$0")/.."

venv="$HOME/.cache/maitool-kube-validate"
if ! "$venv/bin/kubernetes-validate" --version 2>/dev/null | grep -qF "1.37.0"; then
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check \
        kubernetes-validate==1.37.0 attrs==26.1.0 importlib_resources==7.1.0 \
        jsonschema==4.26.0 jsonschema-specifications==2025.9.1 packaging==26.4 PyYAML==6.0.4 \
        referencing==0.37.0 rpds-py==2026.9.1 typing_extensions==4.16.0
fi
"$venv/bin/kubernetes-validate" --strict --kubernetes-version 1.37.0 deploy/*.yaml
