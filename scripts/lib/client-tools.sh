# Sourced by the scripts that generate clients from the description: where each generator lives in
# .tools/ (git-ignored), and at which version. Go keeps its module and build caches where it always
# does, shared by every checkout on the machine; it never fetches a toolchain of its own.
tools="$root/.tools"
OPENAPI_GENERATOR_VERSION="7.25.0"
OPENAPI_GENERATOR_JAR="$tools/openapi-generator/openapi-generator-cli-$OPENAPI_GENERATOR_VERSION.jar"
OAPI_CODEGEN_VERSION="v2.8.2"
OAPI_CODEGEN="$tools/bin/oapi-codegen"
PYTHON_CLIENT_VENV="$tools/python-client"
export GOTOOLCHAIN="local"
