#!/usr/bin/env bash
# Provisions, once, into .tools/ (git-ignored) what `npm run check:clients` needs: openapi-generator-cli
# (a jar, through Maven), oapi-codegen (built by `go install`), and a virtualenv with the runtime
# dependencies of the Python client. Reruns only check the versions.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
source "$root/scripts/lib/client-tools.sh"

if [[ ! -f "$OPENAPI_GENERATOR_JAR" ]]; then
  echo "provision: openapi-generator-cli $OPENAPI_GENERATOR_VERSION into .tools/" >&2
  mvn -B -q dependency:copy -Dartifact="org.openapitools:openapi-generator-cli:$OPENAPI_GENERATOR_VERSION" \
    -DoutputDirectory="$(dirname "$OPENAPI_GENERATOR_JAR")" -Dmdep.overWriteIfNewer=true
fi

if [[ ! -x "$OAPI_CODEGEN" ]] || ! "$OAPI_CODEGEN" -version | grep -qx "$OAPI_CODEGEN_VERSION"; then
  echo "provision: oapi-codegen $OAPI_CODEGEN_VERSION into .tools/" >&2
  GOBIN="$(dirname "$OAPI_CODEGEN")" go install "github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@$OAPI_CODEGEN_VERSION"
fi

requirements="$root/scripts/generated-clients/python/requirements.txt"
if ! cmp -s "$requirements" "$PYTHON_CLIENT_VENV/requirements.txt"; then
  echo "provision: the Python client's dependencies into .tools/" >&2
  python3 -m venv "$PYTHON_CLIENT_VENV"
  "$PYTHON_CLIENT_VENV/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
  cp "$requirements" "$PYTHON_CLIENT_VENV/requirements.txt"
fi
